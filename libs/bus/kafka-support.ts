import type { IHeaders, KafkaMessage, LogEntry, logCreator } from 'kafkajs';
import { AppError, PayloadTooLargeError, UnavailableError, ValidationError, type Logger } from '#core';
import type { ConsumedMessage } from './port.ts';

const tooLarge = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);
const invalid = new Set([
  'INVALID_TOPIC_EXCEPTION',
  'INVALID_PARTITIONS',
  'INVALID_REPLICATION_FACTOR',
  'INVALID_REPLICA_ASSIGNMENT',
  'INVALID_CONFIG',
  'INVALID_RECORD',
  'INVALID_REQUEST',
  'POLICY_VIOLATION',
  'INVALID_GROUP_ID',
]);

/** Protocol error types along a kafkajs error's chain (retries wrap the real cause). */
export function kafkaErrorTypes(error: unknown): string[] {
  const types: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current && typeof current === 'object'; depth++) {
    const { type, errors, cause } = current as { type?: unknown; errors?: unknown; cause?: unknown };
    if (typeof type === 'string') types.push(type);
    // KafkaJSAggregateError (createTopics) carries one error per topic.
    if (Array.isArray(errors)) for (const inner of errors) types.push(...kafkaErrorTypes(inner));
    current = cause;
  }
  return types;
}

/**
 * kafkajs errors never leave the adapter: bad input becomes a 4xx error, anything else
 * (refused connections, timeouts, leader elections, exhausted retries) a retryable 503.
 */
export function translateKafkaError(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error;
  const types = kafkaErrorTypes(error);
  const message = error instanceof Error ? error.message : String(error);
  if (types.some((type) => tooLarge.has(type)))
    return new PayloadTooLargeError(`Kafka ${what}: ${message}`, { cause: error });
  if (types.some((type) => invalid.has(type)))
    return new ValidationError(`Kafka ${what}: ${message}`, { cause: error });
  return new UnavailableError(`Kafka ${what} failed: ${message}`, { cause: error });
}

/**
 * Routes kafkajs's own log lines (WARN and ERROR only) into our pino logger at warn, or info for
 * rebalances: its errors are mostly retries in progress, and what finally fails reaches the
 * caller as an AppError, so they are not errors of the service.
 */
export function kafkaLogCreator(log: Logger): logCreator {
  return () =>
    ({ namespace, log: entry }: LogEntry) => {
      const {
        message,
        timestamp: _timestamp,
        logger: _logger,
        ...extra
      } = entry as LogEntry['log'] & Record<string, unknown>;
      // We bound the idempotent producer's retries on purpose (a publish must fail, not hang,
      // when Kafka is down) and replace the producer after a failure, which keeps sequence
      // numbers consistent; the warning about it would fire on every start.
      if (message.startsWith('Limiting retries for the idempotent producer')) return;
      // Every join or leave makes kafkajs report "the group is rebalancing" from several places;
      // that is routine, not a warning.
      const routine = /rebalanc/i.test(`${message} ${String(extra.error ?? '')}`);
      if (routine) log.info({ namespace, ...extra }, message);
      else log.warn({ namespace, ...extra }, message);
    };
}

function headerText(value: IHeaders[string]): string | undefined {
  // Kafka allows a header name to repeat; the port has one value per name, the last one wins.
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  if (last === undefined) return undefined;
  return typeof last === 'string' ? last : last.toString('utf8');
}

export function toConsumedMessage(topic: string, partition: number, message: KafkaMessage): ConsumedMessage {
  const consumed: ConsumedMessage = {
    topic,
    partition,
    offset: message.offset,
    timestamp: Number(message.timestamp),
    key: message.key?.toString('utf8') ?? '',
    value: message.value?.toString('utf8') ?? '',
  };
  // kafkajs gives every message a headers object, nearly always empty: no arrays per message.
  let headers: Record<string, string> | undefined;
  for (const name in message.headers) {
    const text = headerText(message.headers[name]);
    if (text !== undefined) (headers ??= {})[name] = text;
  }
  if (headers) consumed.headers = headers;
  return consumed;
}
