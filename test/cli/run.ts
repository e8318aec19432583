import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount, type TestVigil } from '#test-vigil';

const BIN = fileURLToPath(new URL('../../apps/cli/bin/vigil.js', import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
}

/** The environment of the test process without any VIGIL_* setting, so nothing leaks into a run. */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => !entry[0].startsWith('VIGIL_') && entry[1] !== undefined,
    ),
  );
}

/** Runs the real binary, as a user would: a child process, stdin/stdout/stderr as pipes. */
export function vigil(args: string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...cleanEnv(), ...options.env },
      cwd: options.cwd,
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A fresh config directory (and XDG home, so a default path can never touch the real one). */
export function tempDir(prefix = 'vigil-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Environment for a user of this server with their own config directory. */
export function userEnv(url: string, configDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { VIGIL_API_URL: url, VIGIL_CONFIG_DIR: configDir, XDG_CONFIG_HOME: configDir, ...extra };
}

/** A new account whose owner key is in the environment, the way CI would use the CLI. */
export async function ownerEnv(server: TestVigil, extra: Record<string, string> = {}) {
  const account = await createAccount(server);
  return { account, env: userEnv(server.url, tempDir(), { VIGIL_API_KEY: account.ownerKey, ...extra }) };
}

/** Results stored in the analytics store for an account: what a `results send` or a simulation left behind. */
export async function storedResults(server: TestVigil, accountId: string): Promise<number> {
  const analytics = server.running.platform.analytics;
  if (!analytics) throw new Error('this Vigil runs without an analytics store');
  return analytics.countResults({ accountId });
}
