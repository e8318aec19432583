import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { benchConfig } from '../config.ts';
import { sleep } from './stats.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  child: ChildProcess;
  pid: number;
  output(): string;
  /** SIGTERM (graceful drain), then SIGKILL after 15 s. */
  stop(): Promise<void>;
}

/** A free loopback port, for a child that must be told its port up front. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Runs a TypeScript entry point as its own node process (as production does), with exactly the env given. */
export function spawnTs(
  entry: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  args: string[] = [],
): Child {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry, ...args], {
    cwd: repoRoot,
    env: { ...benchConfig.childEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    pid: child.pid ?? -1,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls url until it answers 200, or throws with the child's output. */
export async function waitForHttp(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.child.exitCode !== null) throw new Error(`process exited early:\n${child.output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${child.output()}`);
}
