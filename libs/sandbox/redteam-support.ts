// Shared set-up of the red-team suites: a real installed runtime, a sandbox that must exist, and a
// loopback HTTP target that also coordinates concurrent sandboxes (one waits until a test releases it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createLogger } from '#core';
import { findInstalled } from '#runtimes';
import { createSandbox } from './sandbox.ts';
import { RUNTIME_NODE, type Sandbox, type SandboxOutcome, type SandboxSpec } from './types.ts';

/** The first installed runtime's dir; a missing runtime fails the suite (it never skips). */
export async function requireRuntimeDir(): Promise<{ name: string; dir: string }> {
  const runtimes = inject('runtimes');
  if ('error' in runtimes) throw new Error(runtimes.error);
  const [name] = runtimes.installed;
  if (!name) throw new Error('the red-team suites need an installed runtime (npm run runtimes:install)');
  const installed = await findInstalled(runtimes.root, name);
  if (!installed) throw new Error(`runtime ${name} is listed as installed but findInstalled does not find it`);
  return { name, dir: installed.dir };
}

export async function requireRedteamSandbox(): Promise<Sandbox> {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }) });
  const verdict = await sandbox.probe();
  if (!verdict.available) throw new Error(`the red-team suites need bubblewrap: ${verdict.reason}`);
  return sandbox;
}

export interface RunResult {
  outcome: SandboxOutcome;
  workDir: string;
}

/** Runs `code` with the runtime's node in a fresh work dir seeded with `seed` (kept to inspect; removed by `cleanWorkDirs`). */
export function runNode(
  sandbox: Sandbox,
  runtimeDir: string,
  code: string,
  overrides: Partial<SandboxSpec> = {},
  seed: Record<string, string> = {},
): Promise<RunResult> {
  const workDir = mkdtempSync(join(tmpdir(), 'redteam-work-'));
  workDirs.push(workDir);
  for (const [name, content] of Object.entries(seed)) writeFileSync(join(workDir, name), content);
  return sandbox
    .run({
      runtimeDir,
      workDir,
      command: [RUNTIME_NODE, '-e', code],
      env: {},
      timeoutMs: 30_000,
      memoryBytes: 512 * 1024 * 1024,
      maxOutputBytes: 1024 * 1024,
      allowPrivate: false,
      ...overrides,
    })
    .then((outcome) => ({ outcome, workDir }));
}

const workDirs: string[] = [];
export function cleanWorkDirs(): void {
  for (const dir of workDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Every line of stdout as JSON. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export interface Target {
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  /** Resolves when `path` has been requested. */
  seen(path: string): Promise<void>;
  /** Answers every pending and future GET /wait/<key>. */
  release(key: string): void;
  close(): Promise<void>;
}

/** Answers "target-ok <path>"; GET /wait/<key> is held until release(key). */
export async function startTarget(host = '127.0.0.1'): Promise<Target> {
  const hits: string[] = [];
  const waiting = new Map<string, (() => void)[]>();
  const released = new Set<string>();
  const watchers: { path: string; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.push(path);
    for (const watcher of watchers.filter((w) => w.path === path)) watcher.resolve();
    const answer = () => res.end(`target-ok ${path}`);
    const wait = /^\/wait\/(.+)$/.exec(path);
    if (wait && !released.has(wait[1]!)) waiting.set(wait[1]!, [...(waiting.get(wait[1]!) ?? []), answer]);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    seen: (path) =>
      hits.includes(path) ? Promise.resolve() : new Promise((resolve) => watchers.push({ path, resolve })),
    release(key) {
      released.add(key);
      for (const answer of waiting.get(key) ?? []) answer();
      waiting.delete(key);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
