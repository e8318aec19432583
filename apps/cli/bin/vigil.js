#!/usr/bin/env node
// The CLI runs precompiled (dist/cli.js, built at install time by `npm run build`), which starts
// several times faster than compiling TypeScript on load. When a source it was built from changed
// since (a working tree), or there is no build, tsx runs the sources instead, so it is never stale.
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../../../', import.meta.url);
const bundle = new URL('dist/cli.js', root);

function bundleIsFresh() {
  try {
    const built = statSync(bundle).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL('dist/cli.inputs.json', root), 'utf8'));
    return inputs.every((path) => statSync(new URL(path, root)).mtimeMs <= built);
  } catch {
    return false;
  }
}

// `vigil --version` needs no module at all: answer it before loading anything.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).version + '\n');
  process.exit(0);
}

let main;
if (bundleIsFresh()) {
  ({ main } = await import(bundle.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
process.exitCode = await main(process.argv);
