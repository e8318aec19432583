import { parseAlertEvent, type AlertEvent } from '#alerting';
import type { ConsumedMessage, Consumer, MessageBus } from '#bus';
import type { Lifecycle, Logger } from '#core';
import { parseCheckResult, type CheckResult } from '#domain';
import type { StateStore, WriteOp } from '#statestore';
import { alertOps, statusOps, storedStatuses } from './check-status.ts';

export const STATUS_GROUP = 'vigil-check-status';

function parsedValues<T>(
  batch: ConsumedMessage[],
  parse: (raw: unknown) => { ok: true; value: T } | { ok: false },
): T[] {
  const out: T[] = [];
  for (const message of batch) {
    try {
      const parsed = parse(JSON.parse(message.value));
      if (parsed.ok) out.push(parsed.value);
    } catch {
      // Not JSON: the ingestor routes such records to the DLQ with the reason; nothing to show here.
    }
  }
  return out;
}

/**
 * Keeps the check-status and alert-history read models from the bus, in its own consumer group
 * (so it neither slows nor depends on the alerter). Offsets commit after the state-store write;
 * a redelivered batch rewrites the same documents.
 */
export async function startStatusConsumer(deps: {
  bus: MessageBus;
  stateStore: StateStore;
  topics: { checkResults: string; alertEvents: string };
  group: (name: string) => string;
  log: Logger;
  lifecycle: Lifecycle;
}): Promise<Consumer> {
  const log = deps.log.child({ component: 'check-status' });
  const handler = async (batch: ConsumedMessage[]): Promise<void> => {
    const topic = batch[0]?.topic;
    let ops: WriteOp[] = [];
    if (topic === deps.topics.alertEvents) {
      ops = parsedValues<AlertEvent>(batch, parseAlertEvent).flatMap(alertOps);
    } else {
      const results = parsedValues<CheckResult>(batch, parseCheckResult);
      if (results.length > 0) ops = statusOps(results, await storedStatuses(deps.stateStore, results));
    }
    if (ops.length > 0) await deps.stateStore.write(ops);
  };
  const consumer = await deps.bus.consume({
    groupId: deps.group(STATUS_GROUP),
    topics: [deps.topics.checkResults, deps.topics.alertEvents],
    fromBeginning: true,
    maxBatchSize: 1000,
    retry: { initialMs: 500, maxMs: 30_000 },
    handler,
    onError: (error, attempt) => log.warn({ err: error, attempt }, 'status batch failed; retrying'),
  });
  deps.lifecycle.add('check-status', () => consumer.stop());
  return consumer;
}
