#!/usr/bin/env node
// Compiles every app entry into one ESM file under dist/, so production runs `node dist/<app>.js`
// with no TypeScript loader in the chain (signals reach the server, start-up is fast).
// Dependencies stay external (node_modules); the #lib imports point at .ts sources and are bundled.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
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
// import.meta.dirname and import.meta.filename (Node 20.11+) get the source's own paths the same way.
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!/import\.meta\.(url|dirname|filename)/.test(text)) return undefined;
      const source = `__vigilSourceUrl(${JSON.stringify(relative(root, args.path).split('\\').join('/'))})`;
      return {
        contents: text
          .replaceAll('import.meta.url', source)
          .replaceAll('import.meta.filename', `__vigilPath(${source})`)
          .replaceAll('import.meta.dirname', `__vigilDirname(__vigilPath(${source}))`),
        loader: 'ts',
      };
    });
  },
};

/** The banner of bundles in `dir`: the sources' URLs are computed from the repository root above it. */
const bannerFor = (dir) => {
  const up = relative(dir, root).split('\\').join('/');
  return [
    `import { fileURLToPath as __vigilPath } from 'node:url';`,
    `import { dirname as __vigilDirname } from 'node:path';`,
    `const __vigilDist = new URL('./', import.meta.url).href;`,
    `const __vigilSourceUrl = (path) => new URL(${JSON.stringify(up === '' ? '' : `${up}/`)} + path, __vigilDist).href;`,
    // Read by code that must find a sibling bundle (a worker's file) when it runs compiled.
    `globalThis.__vigilDist = __vigilDist;`,
  ].join('\n');
};

/** Worker threads' bundles, which every bundle that may start them needs beside it. */
const WORKERS = ['sandbox-worker', 'sqlite-write-worker'];

/**
 * Bundles `entries` (output name → source path from the root) and the worker threads into `dir`,
 * as production's dist/ is built: the benches run what ships through this too.
 */
export async function bundle(entries, dir) {
  mkdirSync(dir, { recursive: true });
  const all = { ...Object.fromEntries(WORKERS.map((name) => [name, ENTRIES[name]])), ...entries };
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(all).map(([name, path]) => [name, join(root, path)])),
    outdir: dir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    banner: { js: bannerFor(dir) },
    plugins: [sourceUrls],
  });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }) + '\n');
  return result;
}

export async function buildServer({ quiet = false } = {}) {
  const started = Date.now();
  const result = await bundle(ENTRIES, outdir);
  // The CLI's launcher uses dist/cli.js only when no source it was built from has changed since.
  const inputs = (name) =>
    Object.keys(result.metafile.outputs[`dist/${name}.js`]?.inputs ?? {}).filter((p) => !p.includes('node_modules'));
  writeFileSync(join(outdir, 'cli.inputs.json'), JSON.stringify(inputs('cli')) + '\n');
  if (!quiet)
    process.stdout.write(
      `Built ${Object.keys(ENTRIES).length} bundles into ${relative(process.cwd(), outdir) || '.'}/ in ${Date.now() - started} ms\n`,
    );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    // `--outdir <dir> <name>=<source> …` bundles those entries (and the workers) there instead.
    const { values, positionals } = parseArgs({ options: { outdir: { type: 'string' } }, allowPositionals: true });
    if (values.outdir === undefined) await buildServer();
    else await bundle(Object.fromEntries(positionals.map((pair) => pair.split('='))), resolve(values.outdir));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
