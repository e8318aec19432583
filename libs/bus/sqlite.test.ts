import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, sleep, UnavailableError } from '#core';
import { messageBusContract } from './contract.ts';
import { recorder, waitFor } from './contract-support.ts';
import { createSqliteBus, type SqliteBusOptions } from './sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'vigil-bus-'));
const log = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });
let files = 0;
const newPath = () => join(dir, `bus-${files++}.sqlite`);
const open = (options: Partial<SqliteBusOptions> = {}) =>
  createSqliteBus({ path: newPath(), log, pollIntervalMs: 100, ...options });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

messageBusContract('sqlite', () => open());

describe('SQLite bus', () => {
  it('keeps messages and group offsets across a restart, and never reuses an offset', async () => {
    const path = newPath();
    const first = createSqliteBus({ path, log });
    await first.ensureTopics([{ name: 'restart', partitions: 1 }]);
    await first.publish(
      'restart',
      [0, 1, 2].map((i) => ({ key: 'k', value: `a${i}` })),
    );
    const seen = recorder();
    const consumer = await first.consume({ groupId: 'g', topics: ['restart'], handler: seen.handler });
    await waitFor(() => seen.messages.length >= 3, 'first three');
    await consumer.stop();
    await first.publish('restart', [{ key: 'k', value: 'a3' }]);
    // Everything committed is swept, so only the head row can keep offsets from repeating.
    expect(first.sweep(Date.now() + 400 * 3_600_000)).toBe(3);
    await first.close();
    await expect(first.publish('restart', [{ key: 'k', value: 'late' }])).rejects.toBeInstanceOf(UnavailableError);

    const second = createSqliteBus({ path, log });
    await second.publish('restart', [{ key: 'k', value: 'a4' }]);
    const resumed = recorder();
    await second.consume({ groupId: 'g', topics: ['restart'], handler: resumed.handler });
    await waitFor(() => resumed.messages.length >= 2, 'the two unread messages');
    await sleep(300);
    expect(resumed.messages.map((message) => [message.offset, message.value])).toEqual([
      ['3', 'a3'],
      ['4', 'a4'],
    ]);
    await second.close();
  });

  it('sweeps only what every group has committed, and unread topics by age alone', async () => {
    const bus = open({ retentionHours: 1, sweepIntervalMs: 0 });
    await bus.ensureTopics([
      { name: 'kept', partitions: 2 },
      { name: 'dlq', partitions: 1 },
    ]);
    await bus.publish(
      'kept',
      Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
    );
    await bus.publish('dlq', [{ key: 'x', value: 'dead' }]);
    const fast = recorder();
    const fastConsumer = await bus.consume({ groupId: 'fast', topics: ['kept'], handler: fast.handler });
    await waitFor(() => fast.messages.length >= 10, 'the fast group');
    // The slow group has committed nothing: its offsets exist, so nothing of 'kept' may go.
    const slow = await bus.consume({
      groupId: 'slow',
      topics: ['kept'],
      handler: async () => Promise.reject(new Error('down')),
      retry: { initialMs: 10_000, maxMs: 10_000 },
    });
    expect(bus.sweep(Date.now())).toBe(0); // nothing is an hour old yet
    const later = Date.now() + 2 * 3_600_000;
    expect(bus.sweep(later)).toBe(1); // only the unread DLQ message
    await slow.stop();
    const catchUp = recorder();
    const slowAgain = await bus.consume({ groupId: 'slow', topics: ['kept'], handler: catchUp.handler });
    await waitFor(() => catchUp.messages.length >= 10, 'the slow group catching up');
    await Promise.all([fastConsumer.stop(), slowAgain.stop()]);
    expect(bus.sweep(later)).toBe(10);
    await bus.close();
  });

  it('wakes a consumer at once on a publish in the same process', async () => {
    const bus = open({ pollIntervalMs: 20_000 });
    const seen = recorder();
    await bus.consume({ groupId: 'wake', topics: ['wake'], handler: seen.handler });
    await sleep(100); // let the consumer go idle
    const start = Date.now();
    await bus.publish('wake', [{ key: 'k', value: 'now' }]);
    await waitFor(() => seen.messages.length >= 1, 'the message', 5_000);
    expect(Date.now() - start).toBeLessThan(1_000);
    await bus.close();
  });

  it('sees messages another bus (process) wrote into the same file', async () => {
    const path = newPath();
    const reader = createSqliteBus({ path, log, pollIntervalMs: 50 });
    const writer = createSqliteBus({ path, log });
    await reader.ensureTopics([{ name: 'shared', partitions: 3 }]);
    const seen = recorder();
    await reader.consume({ groupId: 'g', topics: ['shared'], handler: seen.handler });
    await writer.publish(
      'shared',
      Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
    );
    await waitFor(() => seen.messages.length >= 30, 'the other writer’s messages', 5_000);
    await Promise.all([reader.close(), writer.close()]);
  });

  it('reports an unopenable file as UnavailableError', () => {
    const notADirectory = join(dir, 'plain-file');
    writeFileSync(notADirectory, '');
    expect(() => createSqliteBus({ path: join(notADirectory, 'bus.sqlite'), log })).toThrow(UnavailableError);
  });

  it('moves 10,000 messages (throughput figure)', async () => {
    const bus = open();
    await bus.ensureTopics([{ name: 'bench', partitions: 12 }]);
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
        'bench',
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
    await bus.consume({ groupId: 'bench', topics: ['bench'], handler });
    await waitFor(() => received >= total, 'all messages', 60_000);
    const end = performance.now();
    const rate = (ms: number) => Math.round((total / ms) * 1000);
    console.log(
      `[bus sqlite] produce ${rate(produceMs)} msgs/s (batches of 1000); consume ${rate(end - firstAt)} msgs/s from the first batch, ${rate(end - consumeStart)} msgs/s including start-up`,
    );
    expect(received).toBe(total);
    await bus.close();
  });
});
