import { Counter, type Registry } from 'prom-client';
import type { AnalyticsStore } from '#analytics';
import type { ConsumedMessage, MessageBus } from '#bus';
import type { Logger } from '#core';
import type { CheckLookup } from './check-lookup.ts';
import { classifyResults, parseJson } from './classify.ts';
import { createInsertGroup } from './insert-group.ts';

export interface IngestDeps {
  analytics: AnalyticsStore;
  bus: MessageBus;
  lookup: CheckLookup;
  /** Where invalid records go, with the reason. */
  dlqTopic: string;
  log: Logger;
  metrics?: Registry;
  /** Group commit bounds (insert-group.ts): most results per insert, inserts in flight at once. */
  insertGroup?: { maxResults?: number; maxInFlight?: number };
}

/**
 * The ingestor's batch handler: invalid records go to the DLQ with the original payload and the
 * reason; valid ones go to the analytics store in one insert, shared with the batches of other
 * partitions handled at the same time. It resolves only after both, so
 * the bus commits offsets only for work that is durable. Any failure (ClickHouse down) throws,
 * and the bus redelivers the same batch after a backoff; the idempotent insert makes that safe.
 */
export function createIngestHandler(deps: IngestDeps) {
  const counter = deps.metrics
    ? new Counter({
        name: 'vigil_ingest_results_total',
        help: 'Check results by outcome',
        labelNames: ['outcome'],
        registers: [deps.metrics],
      })
    : undefined;
  // Partitions consumed at once share inserts (see insert-group.ts).
  const insert = createInsertGroup((results) => deps.analytics.insert(results), deps.insertGroup);
  return async (batch: ConsumedMessage[]): Promise<void> => {
    const { accepted, rejected } = await classifyResults(
      batch.map((message) => parseJson(message.value)),
      deps.lookup,
    );
    if (rejected.length > 0) {
      await deps.bus.publish(
        deps.dlqTopic,
        rejected.map(({ index, message: reason }) => {
          const source = batch[index]!;
          return {
            key: source.key || 'unkeyed',
            value: source.value,
            headers: {
              reason,
              'source-topic': source.topic,
              'source-partition': String(source.partition),
              'source-offset': source.offset,
            },
          };
        }),
      );
      deps.log.warn({ count: rejected.length, first: rejected[0]?.message }, 'invalid check results sent to the DLQ');
    }
    // A runner's NO_DATA signal is not a run: the alerter reads it, the analytics store keeps runs only.
    const runs = accepted.filter((result) => result.noData !== true);
    if (runs.length > 0) await insert(runs);
    counter?.inc({ outcome: 'stored' }, runs.length);
    counter?.inc({ outcome: 'dead-lettered' }, rejected.length);
  };
}
