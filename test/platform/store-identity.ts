import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sqlite } from '#core';
import { expect } from 'vitest';
import { createSqliteEventStore } from '#eventstore';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The identity kept in DATA_DIR/events.sqlite. */
export async function sqliteIdentity(dataDir: string): Promise<string> {
  const store = createSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
  try {
    return await store.identity();
  } finally {
    await store.close();
  }
}

/** Every read-model row in DATA_DIR/state.sqlite, sorted, so two snapshots can be compared. */
export function snapshotReadModels(dataDir: string): string[] {
  const db = new Sqlite(join(dataDir, 'state.sqlite'), { readonly: true });
  try {
    const rows = [
      ...db.prepare("SELECT 'kv' t, key, '' f, value v FROM kv WHERE key LIKE 'rm:%'").all(),
      ...db.prepare("SELECT 'h' t, key, field f, value v FROM hashes WHERE key LIKE 'rm:%'").all(),
      ...db.prepare("SELECT 'z' t, key, member f, CAST(score AS TEXT) v FROM zsets WHERE key LIKE 'rm:%'").all(),
    ] as { t: string; key: string; f: string; v: string }[];
    return rows.map((r) => `${r.t} ${r.key} ${r.f} ${r.v}`).sort();
  } finally {
    db.close();
  }
}

/** Runs a TypeScript entry point of the repository as its own process, with exactly this environment. */
export async function runScript(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

/** `npm run projections:rebuild`, as an operator runs it: its own process, with exactly this environment. */
export async function runRebuild(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return runScript('apps/projector/src/rebuild-main.ts', [], env);
}

export function removeEventStore(dataDir: string): void {
  for (const suffix of ['', '-wal', '-shm']) {
    const file = join(dataDir, `events.sqlite${suffix}`);
    if (existsSync(file)) rmSync(file);
  }
}

/**
 * The scenario of issue 13: read models built from one event store, then the process starts on
 * another (new, empty) store with the same read-model state. It must refuse, naming both stores
 * and the rebuild command; after the rebuild, a new account's key works.
 */
export async function expectRefusalThenRebuild(options: {
  env: Record<string, string>;
  firstDataDir: string;
  secondDataDir: string;
  /** Between the two starts: what replaces the event store. */
  replace(): void;
}): Promise<void> {
  const first = await startVigil({ env: options.env, dataDir: options.firstDataDir });
  try {
    for (let i = 0; i < 2; i++) await createAccount(first);
  } finally {
    await first.stop();
  }
  const before = await sqliteIdentity(options.firstDataDir);
  options.replace();

  const refused = await startVigil({ env: options.env, dataDir: options.secondDataDir }).then(
    async (vigil) => {
      await vigil.stop();
      return undefined;
    },
    (error: unknown) => error as Error,
  );
  expect(refused, 'the second start must refuse').toBeInstanceOf(Error);
  const after = await sqliteIdentity(options.secondDataDir);
  expect(after).not.toBe(before);
  expect(refused!.message).toContain(before);
  expect(refused!.message).toContain(after);
  expect(refused!.message).toContain('npm run projections:rebuild');

  const rebuilt = await runRebuild({ ...options.env, DATA_DIR: options.secondDataDir });
  expect(rebuilt.code, rebuilt.output).toBe(0);

  let second: TestVigil | undefined;
  try {
    second = await startVigil({ env: options.env, dataDir: options.secondDataDir });
    const account = await createAccount(second);
    const me = await account.owner.get('/v1/accounts/me');
    expect(me.status, JSON.stringify(me.body)).toBe(200);
  } finally {
    await second?.stop();
  }
}
