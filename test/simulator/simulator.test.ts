import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { parseOptions, type SimulatorOptions } from '../../apps/simulator/src/options.ts';
import { simulate } from '../../apps/simulator/src/run.ts';
import type { Summary } from '../../apps/simulator/src/summary.ts';

const MAIN = fileURLToPath(new URL('../../apps/simulator/src/main.ts', import.meta.url));
const run = promisify(execFile);

describe('the simulator against a running Vigil (embedded path)', () => {
  let vigil: TestVigil;
  let account: Awaited<ReturnType<typeof createAccount>>;

  beforeAll(async () => {
    vigil = await startVigil();
    account = await createAccount(vigil);
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  const stored = (accountId = account.accountId) => vigil.running.platform.analytics!.countResults({ accountId });

  function options(argv: string[]): SimulatorOptions {
    const parsed = parseOptions(argv, {
      apiUrl: vigil.url,
      apiKey: account.ownerKey,
      accountId: account.accountId,
      ingestKey: vigil.ingestKey,
      kafkaBrokers: undefined,
      topicPrefix: undefined,
    });
    if (typeof parsed === 'string') throw new Error(parsed);
    return parsed;
  }

  it('registers the checks and sends rate × duration results over HTTP, all of them stored', async () => {
    const before = await stored();
    const lines: string[] = [];
    const summary = await simulate(
      options(['--checks', '3', '--rate', '50', '--duration', '2', '--seed', 'http-run']),
      { log: (line) => lines.push(line), progressMs: 0 },
    );

    expect(summary).toMatchObject({
      transport: 'http',
      mode: 'realtime',
      checks: 3,
      generated: 100,
      accepted: 100,
      rejected: 0,
      failed: 0,
      stoppedBy: null,
    });
    expect(await stored()).toBe(before + summary.accepted);
    expect(summary.achievedRate).toBeGreaterThan(35);
    expect(summary.achievedRate).toBeLessThanOrEqual(51);
    expect(lines[0]).toMatch(/Registering 3 checks/);

    const registered = await account.owner.get<{ id: string; checkType: string }[]>('/v1/checks?tag=sim-http-run');
    expect(registered.body).toHaveLength(3);
    const counts = await Promise.all(
      registered.body.map((check) => vigil.running.platform.analytics!.countResults({ checkId: check.id })),
    );
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(100);
    // Every check and location takes turns, so each check got some.
    expect(counts.every((count) => count > 0)).toBe(true);
  });

  it("backfills days of history at each check's frequency, as fast as the API takes it", async () => {
    const before = await stored();
    const summary = await simulate(
      options(['--checks', '8', '--rate', '0', '--backfill-days', '0.5', '--seed', 'backfill', '--batch-size', '2000']),
      { log: () => undefined, progressMs: 0 },
    );
    expect(summary.mode).toBe('backfill');
    expect(summary.generated).toBeGreaterThan(8 * 6);
    expect(summary).toMatchObject({ accepted: summary.generated, rejected: 0, failed: 0 });
    expect(await stored()).toBe(before + summary.accepted);
    expect(Object.keys(summary.results.byType).sort()).toEqual([
      'API',
      'BROWSER',
      'DNS',
      'HEARTBEAT',
      'MULTI_STEP',
      'PLAYWRIGHT',
      'TCP',
      'URL',
    ]);
  });

  it('runs from the command line with the environment `vigil simulate` passes, and prints a JSON summary', async () => {
    const other = await createAccount(vigil);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', MAIN, '--checks', '2', '--rate', '40', '--duration', '1', '--json', '--quiet'],
      {
        env: {
          ...process.env,
          VIGIL_API_URL: vigil.url,
          VIGIL_API_KEY: other.ownerKey,
          VIGIL_ACCOUNT_ID: '',
          VIGIL_INGEST_KEY: vigil.ingestKey,
        },
      },
    );
    const summary = JSON.parse(stdout) as Summary;
    expect(summary).toMatchObject({ checks: 2, generated: 40, accepted: 40, rejected: 0 });
    // Without VIGIL_ACCOUNT_ID the key's own account is used.
    expect(await stored(other.accountId)).toBe(40);
  });

  it('stops at once, exits 1 and says why when the ingest key is wrong', async () => {
    const failure = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        MAIN,
        '--checks',
        '1',
        '--rate',
        '20',
        '--duration',
        '5',
        '--json',
        '--quiet',
        '--ingest-key',
        'not-a-key',
      ],
      {
        env: {
          ...process.env,
          VIGIL_API_URL: vigil.url,
          VIGIL_API_KEY: account.ownerKey,
          VIGIL_ACCOUNT_ID: account.accountId,
        },
      },
    ).then(
      () => null,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const summary = JSON.parse(failure!.stdout) as Summary;
    expect(summary.stoppedBy).toMatch(/401/);
    expect(summary.elapsedSeconds).toBeLessThan(3);
    expect(summary.accepted).toBe(0);
  });
});
