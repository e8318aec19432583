import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, storedResults, tempDir, userEnv, vigil } from './run.ts';

/** `vigil simulate` starts the simulator of apps/simulator with the CLI's credentials. */
let server: TestVigil;
// Each test runs the real binary several times; on a loaded machine that outlasts the default 60 s.
vi.setConfig({ testTimeout: 240_000 });

beforeAll(async () => {
  server = await startVigil();
});
afterAll(async () => {
  await server?.stop();
});

describe.concurrent('simulate', () => {
  it('a short run registers its checks, exits 0 and its results are stored', async ({ expect }) => {
    const { account, env } = await baseOwnerEnv(server, { VIGIL_INGEST_KEY: server.ingestKey });
    // Run from a directory without node_modules: the simulator must not depend on the working directory.
    const run = await vigil(
      ['simulate', '--checks', '2', '--rate', '20', '--duration', '2', '--seed', 'cli-test', '--quiet', '--json'],
      { env, cwd: tempDir('vigil-sim-') },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({
      transport: 'http',
      mode: 'realtime',
      seed: 'cli-test',
      checks: 2,
      targetRate: 20,
      rejected: 0,
      failed: 0,
      stoppedBy: null,
    });
    expect(summary.accepted).toBeGreaterThan(10);
    expect(await storedResults(server, account.accountId)).toBe(summary.accepted);

    const checks = await vigil(['checks', 'ls', '--json'], { env });
    expect(JSON.parse(checks.stdout)).toHaveLength(2);
  });

  it('the table summary goes to stdout, progress to stderr', async ({ expect }) => {
    const { account, env } = await baseOwnerEnv(server, { VIGIL_ADMIN_KEY: server.adminKey });
    // The admin key stands in for the ingest key, as it does for `vigil results send`.
    const run = await vigil(['simulate', '--checks', '1', '--rate', '10', '--duration', '1'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Simulated 1 checks \(realtime, seed \S+\) over http/);
    expect(run.stdout).toMatch(/accepted (\d+), rejected 0, failed 0/);
    expect(run.stderr).toContain(`Registering 1 checks in account ${account.accountId}`);
    const accepted = Number(/accepted (\d+)/.exec(run.stdout)?.[1]);
    expect(accepted).toBeGreaterThan(0);
    expect(await storedResults(server, account.accountId)).toBe(accepted);
  });

  it('not logged in is a usage error; so is a bad flag, reported by the simulator', async ({ expect }) => {
    const { env } = await baseOwnerEnv(server, { VIGIL_INGEST_KEY: server.ingestKey });
    const [noKey, badRate] = await Promise.all([
      vigil(['simulate', '--checks', '5'], {
        env: userEnv(server.url, tempDir(), { VIGIL_INGEST_KEY: server.ingestKey }),
      }),
      vigil(['simulate', '--rate', 'fast'], { env }),
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('vigil login');
    expect(badRate.code).toBe(2);
    expect(badRate.stderr).toContain("option '--rate <n>' argument 'fast' is invalid");
  });
});
