import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, eventually } from '#test-processes';

/**
 * How supervisors stop Vigil: SIGTERM to the PID they started. `npm start` and the Dockerfile's
 * command must both hand the signal to the server, which then frees its port.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function start(command: string, args: string[], port: number): { child: ChildProcess; output: () => string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-npm-start-'));
  dirs.push(dataDir);
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function stopsOnSigterm(command: string, args: string[]) {
  const port = await freePort();
  const app = start(command, args, port);
  await eventually(
    async () => app.output(),
    (out) => out.includes('api listening') || app.child.exitCode !== null,
    90_000,
  );
  expect(await accepts(port), app.output()).toBe(true);
  const exited = new Promise<number | null>((resolve) => app.child.once('exit', (code) => resolve(code)));
  process.kill(app.child.pid!, 'SIGTERM');
  const sent = Date.now();
  await eventually(
    () => accepts(port),
    (open) => !open,
    5_000,
    100,
  );
  const freedAfterMs = Date.now() - sent;
  expect(await exited).toBe(0);
  return { output: app.output(), freedAfterMs };
}

describe('SIGTERM to the started PID frees the port', () => {
  beforeAll(() => {
    // The bundles must match the sources under test.
    execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: root, stdio: 'pipe' });
  }, 120_000);
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('npm start execs node dist/standalone.js, so the signal npm forwards reaches the server', async () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    // exec: sh hands its PID to node, so the signal npm forwards reaches the server itself.
    expect(scripts.start).toBe('exec node dist/standalone.js');
    const { output, freedAfterMs } = await stopsOnSigterm('npm', ['start', '--silent']);
    expect(output).toMatch(/Platform admin key[^\n]*\n\s+vgl_\S+/);
    expect(output).toContain('Next steps:');
    console.log(`npm start: port free ${freedAfterMs} ms after SIGTERM`);
  }, 120_000);

  it("the Dockerfile's command (node dist/standalone.js) stops the same way", async () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/standalone\.js"\]$/m);
    const { freedAfterMs } = await stopsOnSigterm(process.execPath, ['dist/standalone.js']);
    console.log(`node dist/standalone.js: port free ${freedAfterMs} ms after SIGTERM`);
  }, 120_000);
});
