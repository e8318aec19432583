#!/usr/bin/env node
// Compiles every app entry into one ESM file under dist/, so production runs `node dist/<app>.js`
// with no TypeScript loader in the chain (signals reach the server, start-up is fast).
// Dependencies stay external (node_modules); the #lib imports point at .ts sources and are bundled.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = join(root, 'dist');

/** Output name → source entry. */
export const ENTRIES = {
  standalone: 'apps/standalone/src/main.ts',
  api: 'apps/api/src/main.ts',
  projector: 'apps/projector/src/main.ts',
  'projections-rebuild': 'apps/projector/src/rebuild-main.ts',
  ingestor: 'apps/ingestor/src/main.ts',
  alerter: 'apps/alerter/src/main.ts',
  dispatcher: 'apps/dispatcher/src/main.ts',
  runner: 'apps/runner/src/main.ts',
  // The runner in agent mode, for private locations: needs only VIGIL_API_URL and VIGIL_AGENT_KEY.
  agent: 'apps/runner/src/agent-main.ts',
  simulator: 'apps/simulator/src/main.ts',
  cli: 'apps/cli/src/main.ts',
  // Worker threads get their own file; libs/webhooks/sandbox.ts picks it when it runs from dist/.
  'sandbox-worker': 'libs/webhooks/sandbox-worker.ts',
  // libs/statestore/sqlite-offthread.ts: the SQLite state store's write thread.
  'sqlite-write-worker': 'libs/statestore/sqlite-write-worker.ts',
};

// Sources find their data files (runtimes.json, package.json, …) relative to themselves. In a bundle
// import.meta.url is the bundle's, so each source gets its own original URL back, computed from the
// bundle's location at run time: dist/ can move together with the tree, and nothing is copied.
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromRoot = relative(root, args.path).split('\\').join('/');
      return {
        contents: text.replaceAll('import.meta.url', `__vigilSourceUrl(${JSON.stringify(fromRoot)})`),
        loader: 'ts',
      };
    });
  },
};

const banner = [
  `const __vigilDist = new URL('./', import.meta.url).href;`,
  `const __vigilSourceUrl = (path) => new URL('../' + path, __vigilDist).href;`,
  // Read by code that must find a sibling bundle (a worker's file) when it runs compiled.
  `globalThis.__vigilDist = __vigilDist;`,
].join('\n');

export async function buildServer({ quiet = false } = {}) {
  mkdirSync(outdir, { recursive: true });
  const started = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(root, path)])),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    banner: { js: banner },
    plugins: [sourceUrls],
  });
  // The CLI's launcher uses dist/cli.js only when no source it was built from has changed since.
  const inputs = (name) =>
    Object.keys(result.metafile.outputs[`dist/${name}.js`]?.inputs ?? {}).filter((p) => !p.includes('node_modules'));
  writeFileSync(join(outdir, 'cli.inputs.json'), JSON.stringify(inputs('cli')) + '\n');
  writeFileSync(join(outdir, 'package.json'), JSON.stringify({ type: 'module' }) + '\n');
  if (!quiet)
    process.stdout.write(
      `Built ${Object.keys(ENTRIES).length} bundles into ${relative(process.cwd(), outdir) || '.'}/ in ${Date.now() - started} ms\n`,
    );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await buildServer();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
