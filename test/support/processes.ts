import { spawn, type ChildProcess } from 'node:child_process';
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
  const child = spawn(process.execPath, ['--import', 'tsx', `apps/${name}/src/main.ts`], {
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
