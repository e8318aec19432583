import { ValidationError } from '#core';
import type { BusMessage, ConsumeOptions, RetryPolicy, TopicSpec } from './port.ts';

export const defaultRetry: RetryPolicy = { initialMs: 200, maxMs: 30_000 };
export const defaultMaxBatchSize = 500;

/**
 * Kafka's murmur2 (org.apache.kafka.common.utils.Utils#murmur2) over the key's UTF-8 bytes.
 * Both adapters place keys with it, so a key sits on the same partition number in SQLite as
 * in Kafka for the same partition count.
 */
export function murmur2(key: string): number {
  const data = Buffer.from(key, 'utf8');
  const m = 0x5bd1e995;
  const length = data.length;
  let h = (0x9747b28c ^ length) | 0;
  const whole = length - (length % 4);
  for (let i = 0; i < whole; i += 4) {
    let k =
      (data[i]! & 0xff) | ((data[i + 1]! & 0xff) << 8) | ((data[i + 2]! & 0xff) << 16) | ((data[i + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const rest = length % 4;
  if (rest === 3) h ^= (data[whole + 2]! & 0xff) << 16;
  if (rest >= 2) h ^= (data[whole + 1]! & 0xff) << 8;
  if (rest >= 1) {
    h ^= data[whole]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition Kafka's default partitioner picks for a non-null key. */
export function partitionFor(key: string, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}

/** Delay before retry number `failures` (1-based): doubles from initialMs, capped at maxMs. */
export function backoffMs(failures: number, policy: RetryPolicy): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(policy.maxMs, policy.initialMs * 2 ** exponent);
}

// Kafka's own rule for topic names; the SQLite bus enforces it too so a name that works
// embedded also works distributed.
const topicName = /^[a-zA-Z0-9._-]{1,249}$/;

export function checkTopicName(name: string): void {
  if (typeof name !== 'string' || !topicName.test(name) || name === '.' || name === '..') {
    throw new ValidationError(`topic name ${JSON.stringify(name)} is invalid: use 1-249 of [a-zA-Z0-9._-]`);
  }
}

export function checkTopicSpecs(specs: TopicSpec[]): void {
  const seen = new Set<string>();
  for (const spec of specs) {
    checkTopicName(spec.name);
    if (!Number.isInteger(spec.partitions) || spec.partitions < 1 || spec.partitions > 10_000) {
      throw new ValidationError(`topic ${spec.name}: partitions must be an integer from 1 to 10000`);
    }
    if (seen.has(spec.name)) throw new ValidationError(`topic ${spec.name} is listed twice`);
    seen.add(spec.name);
  }
}

export function checkMessages(topic: string, messages: BusMessage[]): void {
  checkTopicName(topic);
  if (!Array.isArray(messages)) throw new ValidationError('messages must be an array');
  messages.forEach((message, index) => {
    if (typeof message?.key !== 'string') throw new ValidationError(`messages[${index}].key must be a string`);
    if (typeof message.value !== 'string') throw new ValidationError(`messages[${index}].value must be a string`);
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      if (typeof value !== 'string') throw new ValidationError(`messages[${index}].headers.${name} must be a string`);
    }
  });
}

export interface ResolvedConsumeOptions extends ConsumeOptions {
  fromBeginning: boolean;
  maxBatchSize: number;
  retry: RetryPolicy;
}

export function resolveConsumeOptions(options: ConsumeOptions): ResolvedConsumeOptions {
  if (typeof options.groupId !== 'string' || options.groupId.length === 0)
    throw new ValidationError('groupId must be a non-empty string');
  if (!Array.isArray(options.topics) || options.topics.length === 0)
    throw new ValidationError('topics must list at least one topic');
  options.topics.forEach(checkTopicName);
  if (typeof options.handler !== 'function') throw new ValidationError('handler must be a function');
  const maxBatchSize = options.maxBatchSize ?? defaultMaxBatchSize;
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1)
    throw new ValidationError('maxBatchSize must be a positive integer');
  const retry = options.retry ?? defaultRetry;
  if (!(retry.initialMs > 0) || !(retry.maxMs >= retry.initialMs))
    throw new ValidationError('retry needs 0 < initialMs <= maxMs');
  return {
    ...options,
    topics: [...new Set(options.topics)],
    fromBeginning: options.fromBeginning ?? true,
    maxBatchSize,
    retry,
  };
}
