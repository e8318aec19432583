import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesScript, startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, spawnApp, type AppProcess } from '#test-processes';
import { sampleResult } from '../fixtures/results.ts';

// Stops the shared ClickHouse, so it runs in the "disruptive" project, after every other suite.
describe('ingestion survives ClickHouse going away for 20 s', () => {
  let fx: DistributedFixture;
  let ingestor: AppProcess | undefined;
  beforeAll(async () => {
    fx = await startDistributed({ checks: 5 });
  });
  afterAll(async () => {
    await servicesScript('up', 'clickhouse');
    await ingestor?.kill('SIGTERM');
    await fx?.stop();
  });

  it('pauses, retries with backoff, does not crash, and ends with an exact count', async () => {
    const stored = () => fx.clickhouse.countResults({ accountId: fx.account.accountId });
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => {
        const checkId = fx.checkIds[i % fx.checkIds.length]!;
        return { key: checkId, value: JSON.stringify(sampleResult({ accountId: fx.account.accountId, checkId })) };
      });
    ingestor = spawnApp('ingestor', { ...fx.env, VIGIL_INGEST_RETRY_MS: '200' });
    await fx.bus.publish(fx.topics.checkResults, batch(5000));
    await eventually(stored, (n) => n === 5000, 60_000);

    await servicesScript('down', 'clickhouse');
    await fx.bus.publish(fx.topics.checkResults, batch(5000));
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    expect(ingestor.child.exitCode, ingestor.output().slice(-2000)).toBeNull();
    await servicesScript('up', 'clickhouse');

    expect(await eventually(stored, (n) => n >= 10_000, 120_000, 500)).toBe(10_000);
    expect(ingestor.child.exitCode).toBeNull();
    expect(ingestor.output()).toMatch(/retrying/);
  }, 240_000);
});
