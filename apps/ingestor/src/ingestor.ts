import type { Registry } from 'prom-client';
import type { Consumer } from '#bus';
import { InternalError, type Lifecycle, type Logger } from '#core';
import { createCheckLookup, createIngestHandler } from '#pipeline';
import type { Platform } from '#platform';
import { ReadModels } from '#readmodels';

export const INGESTOR_GROUP = 'vigil-ingestor';
/** Partitions of a fetch handled at once; bench/ingest's minimal pipeline uses the same. */
export const INGESTOR_PARTITIONS_CONCURRENTLY = 12;

/**
 * Check results from the bus into the analytics store, in batches, committing offsets only
 * after the write. When the store is down the bus pauses the partition and retries with
 * backoff: nothing is lost and the process does not crash-loop.
 */
export async function startIngestor(deps: {
  platform: Platform;
  log: Logger;
  lifecycle: Lifecycle;
  metrics?: Registry;
  batchSize?: number;
  retryMs?: number;
}): Promise<Consumer> {
  const { bus, analytics, stateStore } = deps.platform;
  if (!bus || !analytics) throw new InternalError('the ingestor needs the message bus and the analytics store');
  const log = deps.log.child({ component: 'ingestor' });
  const handler = createIngestHandler({
    analytics,
    bus,
    lookup: createCheckLookup(new ReadModels(stateStore)),
    dlqTopic: deps.platform.topics.checkResultsDlq,
    log,
    metrics: deps.metrics,
    // Inserts of at most a batch each, two in flight on ClickHouse (it parses each insert on one
    // thread; DuckDB takes one writer at a time).
    insertGroup: {
      maxResults: deps.batchSize ?? 20_000,
      maxInFlight: analytics.dialect === 'clickhouse' ? 2 : 1,
    },
  });
  const consumer = await bus.consume({
    groupId: deps.platform.group(INGESTOR_GROUP),
    topics: [deps.platform.topics.checkResults],
    fromBeginning: true,
    maxBatchSize: deps.batchSize ?? 20_000,
    // Partitions handled at once share one insert (the handler's group commit): all of a fetch's
    // partitions at once (the default topic has 12) make one ClickHouse insert per fetch, not two
    // in a row, which halves the time a fetch's records wait for their commit.
    partitionsConcurrently: INGESTOR_PARTITIONS_CONCURRENTLY,
    retry: { initialMs: deps.retryMs ?? 500, maxMs: 30_000 },
    handler: (batch) => handler(batch),
    onError: (error, attempt) => log.warn({ err: error, attempt }, 'ingest batch failed; retrying'),
  });
  deps.lifecycle.add('ingestor', () => consumer.stop());
  log.info('ingestor consuming');
  return consumer;
}
