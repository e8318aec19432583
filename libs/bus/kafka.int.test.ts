import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { partitionFor } from './common.ts';
import { messageBusContract } from './contract.ts';
import { recorder, waitFor } from './contract-support.ts';
import { createKafkaBus } from './kafka.ts';
import type { MessageBus } from './port.ts';

const run = promisify(execFile);
const log = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });
const open = () =>
  createKafkaBus({ brokers: services().KAFKA_BROKERS.split(','), clientId: `vigil-test-${uniqueSuffix()}`, log });

messageBusContract('kafka', open);

describe('Kafka bus', () => {
  let bus: MessageBus;
  beforeAll(() => {
    bus = open();
  });
  afterAll(async () => {
    await bus?.close();
  });

  it('lands every concurrent publish exactly once (idempotent producer)', async () => {
    const topic = `vigil.concurrent.${uniqueSuffix()}`;
    await bus.ensureTopics([{ name: topic, partitions: 3 }]);
    await Promise.all(Array.from({ length: 60 }, (_, i) => bus.publish(topic, [{ key: `k${i % 7}`, value: `c${i}` }])));
    const seen = recorder();
    await bus.consume({ groupId: `concurrent-${uniqueSuffix()}`, topics: [topic], handler: seen.handler });
    await waitFor(() => seen.messages.length >= 60, 'sixty messages');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(seen.values().sort()).toEqual(Array.from({ length: 60 }, (_, i) => `c${i}`).sort());
  });

  it('places keys produced by kcat with murmur2_random where the bus expects them', async () => {
    const topic = `vigil.kcat.${uniqueSuffix()}`;
    await bus.ensureTopics([{ name: topic, partitions: 6 }]);
    const lines = Array.from({ length: 30 }, (_, i) => `check-${i}|{"n":${i}}`).join('\n');
    const kcat = run(
      'kcat',
      ['-P', '-b', services().KAFKA_BROKERS, '-t', topic, '-K', '|', '-X', 'partitioner=murmur2_random'],
      { timeout: 30_000 },
    );
    kcat.child.stdin?.end(`${lines}\n`);
    await kcat;
    const seen = recorder();
    await bus.consume({ groupId: `kcat-${uniqueSuffix()}`, topics: [topic], handler: seen.handler });
    await waitFor(() => seen.messages.length >= 30, 'the kcat messages');
    for (const message of seen.messages) expect(message.partition).toBe(partitionFor(message.key, 6));
  });

  it('moves 10,000 messages (throughput figure)', async () => {
    const topic = `vigil.bench.${uniqueSuffix()}`;
    await bus.ensureTopics([{ name: topic, partitions: 12 }]);
    const total = 10_000;
    const payload = JSON.stringify({
      checkId: 'x'.repeat(24),
      responseTime: 123,
      passed: true,
      location: 'eu-west-1',
      padding: 'p'.repeat(120),
    });
    const produceStart = performance.now();
    for (let i = 0; i < total; i += 1_000) {
      await bus.publish(
        topic,
        Array.from({ length: 1_000 }, (_, j) => ({ key: `check-${(i + j) % 500}`, value: payload })),
      );
    }
    const produceMs = performance.now() - produceStart;
    let received = 0;
    let firstAt = 0;
    const consumeStart = performance.now();
    const handler = async (batch: unknown[]) => {
      firstAt ||= performance.now();
      received += batch.length;
    };
    await bus.consume({ groupId: `bench-${uniqueSuffix()}`, topics: [topic], handler });
    await waitFor(() => received >= total, 'all messages', 60_000);
    const end = performance.now();
    const rate = (ms: number) => Math.round((total / ms) * 1000);
    console.log(
      `[bus kafka] produce ${rate(produceMs)} msgs/s (batches of 1000); consume ${rate(end - firstAt)} msgs/s from the first batch, ${rate(end - consumeStart)} msgs/s including the group join`,
    );
    expect(received).toBe(total);
  });
});
