import type { AnalyticsStore } from '#analytics';
import type { MessageBus, PublishOptions } from '#bus';
import type { CheckResult } from '#domain';

/** Where accepted results go; it resolves only once they are durable. */
export interface ResultSink {
  /** options.timeoutMs bounds the wait for the bus (see PublishOptions): the HTTP ingest's deadline. */
  accept(results: CheckResult[], options?: PublishOptions): Promise<void>;
}

export function toMessages(results: CheckResult[]) {
  return results.map((result) => ({ key: result.checkId, value: JSON.stringify(result) }));
}

/**
 * Distributed path: results are durable once Kafka acknowledges them; the ingestor then
 * writes them to ClickHouse and the alerter reads them with its own consumer group.
 */
export function createBusSink(bus: MessageBus, topic: string): ResultSink {
  return { accept: (results, options) => bus.publish(topic, toMessages(results), options) };
}

/**
 * Embedded path: results go straight into DuckDB, then onto the embedded (SQLite) bus for the
 * alerter. The insert is idempotent, so a client retrying after a failed publish is safe.
 */
export function createDirectSink(analytics: AnalyticsStore, bus: MessageBus, topic: string): ResultSink {
  return {
    async accept(results) {
      // A runner's NO_DATA signal is not a run: only the alerter reads it (see ingest-handler).
      const runs = results.filter((result) => result.noData !== true);
      if (runs.length > 0) await analytics.insert(runs);
      await bus.publish(topic, toMessages(results));
    },
  };
}
