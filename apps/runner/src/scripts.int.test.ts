import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '#core';
import { runProbe, type ProbeContext } from '#probes';
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
