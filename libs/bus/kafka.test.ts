import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createLogger, PayloadTooLargeError, UnavailableError, ValidationError } from '#core';
import { createKafkaBus } from './kafka.ts';
import { kafkaErrorTypes, toConsumedMessage, translateKafkaError } from './kafka-support.ts';

const log = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });

// Nothing listens on port 1: every call must fail fast with UnavailableError, not hang.
describe('Kafka bus without a reachable broker', () => {
  const bus = createKafkaBus({ brokers: ['127.0.0.1:1'], clientId: 'vigil-test', log, pingTimeoutMs: 3_000 });

  it.each([
    ['ping', () => bus.ping()],
    ['publish', () => bus.publish('vigil.test', [{ key: 'k', value: 'v' }])],
    ['ensureTopics', () => bus.ensureTopics([{ name: 'vigil.test', partitions: 1 }])],
    ['consume', () => bus.consume({ groupId: 'g', topics: ['vigil.test'], handler: async () => undefined })],
    [
      'consume from the end',
      () => bus.consume({ groupId: 'g', topics: ['vigil.test'], fromBeginning: false, handler: async () => undefined }),
    ],
  ])('%s rejects with UnavailableError within seconds', async (_name, call) => {
    const start = Date.now();
    await expect(call()).rejects.toBeInstanceOf(UnavailableError);
    expect(Date.now() - start).toBeLessThan(20_000);
  });

  it('still validates before touching the network', async () => {
    await expect(bus.publish('bad topic', [{ key: 'k', value: 'v' }])).rejects.toBeInstanceOf(ValidationError);
    await bus.close();
    await expect(bus.ping()).rejects.toBeInstanceOf(UnavailableError);
  });
});

describe('Kafka bus during an outage', () => {
  it('after a publish finds Kafka unavailable, publishes and pings fail at once, naming the outage', async () => {
    const bus = createKafkaBus({ brokers: ['127.0.0.1:1'], clientId: 'vigil-test', log, publishTimeoutMs: 1_000 });
    const message = [{ key: 'k', value: 'v' }];
    await expect(bus.publish('vigil.test', message)).rejects.toBeInstanceOf(UnavailableError);
    await expect(bus.publish('vigil.test', message)).rejects.toThrow(/^Kafka is unavailable \(since /);
    await expect(bus.publish('vigil.test', message, { timeoutMs: 50 })).rejects.toBeInstanceOf(UnavailableError);
    await expect(bus.ping()).rejects.toThrow(/^Kafka is unavailable \(since /);
    await bus.close();
  });
});

describe('Kafka error translation', () => {
  it('finds protocol error types through retry and aggregate wrappers', () => {
    const protocol = Object.assign(new Error('too big'), { type: 'MESSAGE_TOO_LARGE' });
    const retries = Object.assign(new Error('retries exceeded'), { cause: protocol });
    expect(kafkaErrorTypes(retries)).toEqual(['MESSAGE_TOO_LARGE']);
    expect(translateKafkaError(retries, 'publish')).toBeInstanceOf(PayloadTooLargeError);
    const aggregate = Object.assign(new Error('some failed'), {
      errors: [Object.assign(new Error('x'), { type: 'INVALID_PARTITIONS' })],
    });
    expect(translateKafkaError(aggregate, 'ensureTopics')).toBeInstanceOf(ValidationError);
    expect(translateKafkaError(new Error('ECONNREFUSED'), 'ping')).toBeInstanceOf(UnavailableError);
  });

  it('turns a kafkajs message into a ConsumedMessage', () => {
    const consumed = toConsumedMessage('t', 3, {
      key: Buffer.from('check-1'),
      value: Buffer.from('{"a":1}'),
      timestamp: '1700000000000',
      offset: '42',
      attributes: 0,
      size: 0,
      headers: { single: Buffer.from('x'), repeated: [Buffer.from('first'), 'last'], missing: undefined },
      // The rest of a RecordBatchEntry (batch context, control flag) is not read.
    } as unknown as KafkaMessage);
    expect(consumed).toEqual({
      topic: 't',
      partition: 3,
      offset: '42',
      timestamp: 1_700_000_000_000,
      key: 'check-1',
      value: '{"a":1}',
      headers: { single: 'x', repeated: 'last' },
    });
  });
});
