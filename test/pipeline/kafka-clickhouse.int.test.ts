import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTopic, startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, spawnApp, type AppProcess } from '#test-processes';
import { sampleResult } from '../fixtures/results.ts';

const run = promisify(execFile);

describe('Kafka → ingestor → ClickHouse, exactly once in effect', () => {
  let fx: DistributedFixture;
  let ingestor: AppProcess | undefined;
  beforeAll(async () => {
    fx = await startDistributed({ checks: 20 });
  });
  afterAll(async () => {
    await ingestor?.kill('SIGTERM');
    await fx?.stop();
  });

  const stored = () => fx.clickhouse.countResults({ accountId: fx.account.accountId });
  const produce = async (values: { key: string; value: string }[]) => {
    for (let i = 0; i < values.length; i += 5000)
      await fx.bus.publish(fx.topics.checkResults, values.slice(i, i + 5000));
  };

  it('stores exactly the valid, unique results of 100,000 (1% duplicates, 0.5% invalid), across a SIGKILL of the ingestor', async () => {
    const unique = 98_500;
    const valid = Array.from({ length: unique }, (_, i) => {
      const checkId = fx.checkIds[i % fx.checkIds.length]!;
      const result = sampleResult(
        { accountId: fx.account.accountId, checkId },
        { startedAt: new Date(Date.now() - (i % 86_400) * 1000).toISOString() },
      );
      return { key: checkId, value: JSON.stringify(result) };
    });
    const duplicates = Array.from({ length: 1000 }, (_, i) => valid[(i * 97) % unique]!);
    const invalid = [
      ...Array.from({ length: 200 }, () => ({ key: fx.checkIds[0]!, value: '{"not json' })),
      ...Array.from({ length: 200 }, () => ({
        key: fx.checkIds[1]!,
        value: JSON.stringify(
          sampleResult({ accountId: fx.account.accountId, checkId: fx.checkIds[1]! }, { responseTime: -5 }),
        ),
      })),
      ...Array.from({ length: 100 }, () => {
        const unknown = randomUUID();
        return {
          key: unknown,
          value: JSON.stringify(sampleResult({ accountId: fx.account.accountId, checkId: unknown })),
        };
      }),
    ];
    const all = [...valid, ...duplicates, ...invalid].sort(() => Math.random() - 0.5);
    expect(all).toHaveLength(100_000);

    ingestor = spawnApp('ingestor', { ...fx.env, VIGIL_INGEST_BATCH_SIZE: '2000' });
    await produce(all.slice(0, 50_000));
    await eventually(stored, (n) => n > 0, 60_000);
    // Killed mid-stream: the second half is not even produced yet.
    expect(await ingestor.kill('SIGKILL')).toBe('SIGKILL');
    await produce(all.slice(50_000));
    ingestor = spawnApp('ingestor', { ...fx.env, VIGIL_INGEST_BATCH_SIZE: '2000' });
    const final = await eventually(stored, (n) => n >= unique, 180_000, 500);
    expect(final).toBe(unique);
    // Nothing more trickles in: the count stays exact once the group has caught up.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await stored()).toBe(unique);

    const source = (m: { headers?: Record<string, string> }) =>
      `${m.headers?.['source-partition']}:${m.headers?.['source-offset']}`;
    const dlq = await readTopic(fx.bus, fx.topics.checkResultsDlq, invalid.length, 60_000, source);
    expect(dlq).toHaveLength(invalid.length);
    const reasons = dlq.map((m) => m.headers?.reason ?? '');
    expect(reasons.filter((r) => /JSON/.test(r))).toHaveLength(200);
    expect(reasons.filter((r) => /responseTime/.test(r))).toHaveLength(200);
    expect(reasons.filter((r) => /unknown check/.test(r))).toHaveLength(100);
    expect(dlq.find((m) => m.value === '{"not json')).toBeDefined();
  }, 300_000);

  it('takes JSON results produced with kcat all the way to ClickHouse', async () => {
    const before = await stored();
    const checkId = fx.checkIds[3]!;
    const lines =
      Array.from(
        { length: 25 },
        () => `${checkId}\t${JSON.stringify(sampleResult({ accountId: fx.account.accountId, checkId }))}`,
      ).join('\n') + '\n';
    const brokers = fx.env.KAFKA_BROKERS!;
    // murmur2_random is Kafka's Java/kafkajs partitioner, so kcat keys land where Vigil's would.
    const kcat = run(
      'kcat',
      ['-P', '-b', brokers, '-t', fx.topics.checkResults, '-K', '\t', '-X', 'partitioner=murmur2_random'],
      { timeout: 30_000 },
    );
    kcat.child.stdin?.end(lines);
    await kcat;
    if (!ingestor || ingestor.child.exitCode !== null) ingestor = spawnApp('ingestor', fx.env);
    expect(await eventually(stored, (n) => n >= before + 25, 60_000)).toBe(before + 25);
  }, 120_000);
});
