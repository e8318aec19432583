// A stand-in runner for the die-with-parent test: starts a sandboxed process that would run for
// minutes, says "ready" once it runs, and waits to be SIGKILLed by the test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '#core';
import { createSandbox } from './sandbox.ts';
import { processesWith } from './test-fixture.ts';
import { RUNTIME_NODE } from './types.ts';

const [runtimeDir, token] = process.argv.slice(2) as [string, string];
const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }) });
void sandbox.run({
  runtimeDir,
  workDir: mkdtempSync(join(tmpdir(), 'sandbox-work-')),
  command: [RUNTIME_NODE, '-e', 'setInterval(() => {}, 1000)', token],
  env: {},
  timeoutMs: 300_000,
  memoryBytes: 256 * 1024 * 1024,
  maxOutputBytes: 1024,
  allowPrivate: false,
});
const timer = setInterval(() => {
  // bwrap and the command (the bridge runs inside it) carry the token on their command lines.
  if (processesWith(token).length >= 2) {
    clearInterval(timer);
    process.stdout.write('ready\n');
  }
}, 20);
