import type { Registry } from 'prom-client';
import type { Consumer } from '#bus';
import { InternalError, type Lifecycle, type Logger } from '#core';
import { createCheckLookup, createIngestHandler } from '#pipeline';
import type { Platform } from '#platform';
import { ReadModels } from '#readmodels';

export const INGESTOR_GROUP = 'vigil-ingestor';

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
  });
  const consumer = await bus.consume({
    groupId: deps.platform.group(INGESTOR_GROUP),
    topics: [deps.platform.topics.checkResults],
    fromBeginning: true,
    maxBatchSize: deps.batchSize ?? 20_000,
    // Partitions handled at once share one insert (the handler's group commit): more of them at
    // once makes fewer, larger ClickHouse inserts, while the next fetch overlaps the insert.
    partitionsConcurrently: 6,
    retry: { initialMs: deps.retryMs ?? 500, maxMs: 30_000 },
    handler: (batch) => handler(batch),
    onError: (error, attempt) => log.warn({ err: error, attempt }, 'ingest batch failed; retrying'),
  });
  deps.lifecycle.add('ingestor', () => consumer.stop());
  log.info('ingestor consuming');
  return consumer;
}
