import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '#core';
import { runProbe, type ProbeContext } from '#probes';
import { installStatus } from '#runtimes';
import { eventually } from '#test-processes';
import { createRunnerScripts, type RunnerScripts } from './scripts.ts';

// The runner's sandbox and script runner: ready where bubblewrap works; where it cannot run,
// /ready names the reason and script checks fail with it, never running unsandboxed.
const runtimesEnv = inject('runtimes');
const runtimeId = 'installed' in runtimesEnv ? runtimesEnv.installed[0] : undefined;
const logger = createLogger({ level: 'silent', name: 'runner-scripts-test' });
const opened: RunnerScripts[] = [];
afterAll(async () => {
  for (const scripts of opened) await scripts.close();
});

const open = (bwrapPath?: string) => {
  const scripts = createRunnerScripts({
    runtimesDir: 'root' in runtimesEnv ? runtimesEnv.root : undefined,
    chromiumPath: undefined,
    logger,
    ...(bwrapPath ? { bwrapPath } : {}),
  });
  opened.push(scripts);
  return scripts;
};

const context = (scripts: RunnerScripts): ProbeContext => ({
  resultId: crypto.randomUUID(),
  accountId: crypto.randomUUID(),
  checkId: crypto.randomUUID(),
  location: 'local',
  startedAt: new Date(),
  degradedResponseTime: 30_000,
  maxResponseTime: 30_000,
  variables: {},
  secretValues: [],
  allowPrivate: false,
  timeoutMs: 35_000,
  scripts: scripts.scripts,
});

const script = `
import { test, expect } from '@playwright/test';
test('arithmetic', async () => { await test.step('adds', async () => expect(1 + 1).toBe(2)); });
`;

describe('the runner’s script runner', () => {
  it('is ready and runs a script where the sandbox works', async () => {
    if (!runtimeId) throw new Error('no runtime is installed');
    const scripts = open();
    await expect(scripts.readiness.check()).resolves.toBeUndefined();
    const { result } = await runProbe({ checkType: 'MULTI_STEP', script, runtimeId }, context(scripts));
    expect(result.errorMessage).toBeUndefined();
    expect(result.steps?.find((step) => step.name === 'adds')?.status).toBe('passed');
  });

  it('reports "sandbox unavailable" on /ready and fails script checks with it when bubblewrap cannot run', async () => {
    if (!runtimeId) throw new Error('no runtime is installed');
    const scripts = open('/nonexistent/bwrap');
    await expect(scripts.readiness.check()).rejects.toThrow(/^sandbox unavailable: /);
    const { result } = await runProbe({ checkType: 'MULTI_STEP', script, runtimeId }, context(scripts));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toMatch(/sandbox unavailable/);
    expect(result.steps ?? []).toEqual([]);
  });
});

describe('runtimes installed by the runner at start', () => {
  it(
    'installs a missing runtime under umask 077 (the standalone server’s) so the sandbox can run it',
    async () => {
      if (!runtimeId) throw new Error('no runtime is installed');
      const root = mkdtempSync(join(tmpdir(), 'runner-runtimes-'));
      const previous = process.umask(0o077);
      let scripts: RunnerScripts | undefined;
      try {
        scripts = createRunnerScripts({ runtimesDir: root, chromiumPath: undefined, logger, installRuntimes: true });
        // Every usable runtime is installed in the background (npm ci of each lockfile, from npm's cache).
        await eventually(
          async () => (await installStatus(root, { now: new Date() })).missing,
          (missing) => missing.length === 0,
          8 * 60_000,
          1_000,
        );
        process.umask(previous);
        const { result } = await runProbe({ checkType: 'MULTI_STEP', script, runtimeId }, context(scripts));
        expect(result.errorMessage).toBeUndefined();
        expect(result.steps?.find((step) => step.name === 'adds')?.status).toBe('passed');
      } finally {
        process.umask(previous);
        await scripts?.close();
        rmSync(root, { recursive: true, force: true });
      }
    },
    10 * 60_000,
  );

  it('close() stops an install in progress and leaves no half-built runtime behind', async () => {
    const root = mkdtempSync(join(tmpdir(), 'runner-runtimes-'));
    try {
      const scripts = createRunnerScripts({
        runtimesDir: root,
        chromiumPath: undefined,
        logger,
        installRuntimes: true,
      });
      // Let npm ci get going, then shut down as a runner does on SIGTERM.
      await eventually(
        async () => readdirSync(root).some((entry) => entry.startsWith('.tmp-')),
        (started) => started,
        60_000,
        50,
      );
      const started = Date.now();
      await scripts.close();
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(readdirSync(root).filter((entry) => !entry.endsWith('.lock'))).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
