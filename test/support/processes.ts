import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface AppProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Runs apps/<name>/src/main.ts as its own process, as production does, with exactly the env given. */
export function spawnApp(name: string, env: Record<string, string>): AppProcess {
  return spawnNode(['--import', 'tsx', `apps/${name}/src/main.ts`], env);
}

/** Runs node with these arguments from the repository root, with exactly the env given (a bundle: ['dist/agent.js']). */
export function spawnNode(args: string[], env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return {
    child,
    output: () => output,
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Polls until check() returns true, or fails with the last value after timeoutMs. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    value = await read();
  }
  return value;
}

/** A loopback port nothing listens on right now (the kernel picks it; the probe closes before returning). */
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

/** Waits until GET url+path answers 200; connection errors count as "not yet". */
export async function waitForOk(url: string, path = '/ready', timeoutMs = 90_000, intervalMs = 50): Promise<void> {
  await eventually(
    () =>
      fetch(`${url}${path}`).then(
        (response) => response.status,
        () => 0,
      ),
    (status) => status === 200,
    timeoutMs,
    intervalMs,
  );
}

/** Spawns apps/<name> listening on 127.0.0.1:port and resolves once waitPath answers 200. */
export async function startApp(
  name: string,
  port: number,
  env: Record<string, string>,
  waitPath = '/ready',
  timeoutMs = 90_000,
): Promise<{ app: AppProcess; url: string }> {
  const app = spawnApp(name, { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(url, waitPath, timeoutMs);
  } catch (error) {
    await app.kill('SIGKILL');
    throw new Error(`${name} did not answer ${waitPath} on ${url}\n${app.output().slice(-2000)}`, { cause: error });
  }
  return { app, url };
}
