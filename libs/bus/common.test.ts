import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { backoffMs, checkMessages, checkTopicName, murmur2, partitionFor, resolveConsumeOptions } from './common.ts';

describe('murmur2', () => {
  // Expected values from Kafka's own UtilsTest (the Java client the partitioner must match).
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ])('hashes %s like the Java client', (key, expected) => {
    expect(murmur2(key)).toBe(expected);
  });

  it('agrees with the kafkajs default partitioner on random keys', async () => {
    // @ts-expect-error: an untyped internal module of kafkajs, used only to cross-check.
    const { default: kafkajsMurmur2 } = (await import('kafkajs/src/producer/partitioners/default/murmur2.js')) as {
      default: (key: string) => number;
    };
    for (let i = 0; i < 2_000; i++) {
      const key = `${Math.random()
        .toString(36)
        .slice(2, 2 + (i % 23))}-ü${i}`;
      expect(murmur2(key)).toBe(kafkajsMurmur2(key));
    }
  });

  it('maps keys onto partitions in range, the same way every time', () => {
    for (let i = 0; i < 500; i++) {
      const partition = partitionFor(`check-${i}`, 12);
      expect(partition).toBeGreaterThanOrEqual(0);
      expect(partition).toBeLessThan(12);
      expect(partitionFor(`check-${i}`, 12)).toBe(partition);
    }
  });
});

describe('backoffMs', () => {
  it('doubles from initialMs and stops at maxMs', () => {
    const policy = { initialMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 60].map((failures) => backoffMs(failures, policy))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
  });
});

describe('validation', () => {
  it('accepts Kafka topic names and rejects others', () => {
    expect(() => checkTopicName('vigil.check-results.v1')).not.toThrow();
    for (const bad of ['', 'has space', 'slash/topic', '.', '..', 'x'.repeat(250)])
      expect(() => checkTopicName(bad)).toThrow(ValidationError);
  });

  it('names the offending message field', () => {
    expect(() =>
      checkMessages('t', [
        { key: 'k', value: 'v' },
        { key: 'k', value: 3 as unknown as string },
      ]),
    ).toThrow('messages[1].value');
    expect(() => checkMessages('t', [{ key: 'k', value: 'v', headers: { a: 1 as unknown as string } }])).toThrow(
      'messages[0].headers.a',
    );
  });

  it('fills consume defaults and rejects bad options', () => {
    const handler = async () => undefined;
    const resolved = resolveConsumeOptions({ groupId: 'g', topics: ['a', 'a'], handler });
    expect(resolved).toMatchObject({
      topics: ['a'],
      fromBeginning: true,
      maxBatchSize: 500,
      retry: { initialMs: 200, maxMs: 30_000 },
    });
    expect(() => resolveConsumeOptions({ groupId: 'g', topics: [], handler })).toThrow(ValidationError);
    expect(() => resolveConsumeOptions({ groupId: 'g', topics: ['a'], handler, maxBatchSize: 0 })).toThrow(
      ValidationError,
    );
    expect(() =>
      resolveConsumeOptions({ groupId: 'g', topics: ['a'], handler, retry: { initialMs: 10, maxMs: 5 } }),
    ).toThrow(ValidationError);
  });
});
