import type { AnalyticsStore } from '#analytics';
import type { Consumer, MessageBus } from '#bus';
import type { Logger } from '#core';
import { parseCheckResultFast, parseJson, toMessages, type ResultSink } from '#pipeline';

/**
 * Marks a result on the embedded bus whose analytics insert was left to the ping drain. Results
 * of other producers there were inserted before they were published and carry no mark.
 */
export const DEFERRED_HEADER = 'vigil-analytics';
export const PING_DRAIN_GROUP = 'vigil-ping-analytics';

/**
 * The durable step of a ping: one append of the whole batch to the results topic. On Kafka that
 * is all (the ingestor writes ClickHouse, as for every producer). On the embedded bus it is one
 * SQLite transaction (synchronous=FULL) instead of waiting for DuckDB, which takes tens of ms per
 * insert; `deferred` marks the records so the drain below inserts them.
 */
export function createPingSink(bus: MessageBus, topic: string, deferred: boolean): ResultSink {
  return {
    accept: (results) =>
      bus.publish(
        topic,
        deferred
          ? toMessages(results).map((message) => ({ ...message, headers: { [DEFERRED_HEADER]: 'deferred' } }))
          : toMessages(results),
      ),
  };
}

/**
 * Embedded only: marked results from the bus into DuckDB, in batches, off the ping's answer path.
 * The group's offset moves only after the insert, so a kill -9 between the answer and the insert
 * leaves the results to the restarted process (at-least-once); the insert ignores ids it has.
 * The check was looked up when the ping was taken, so the registry is not asked again: a check
 * deleted meanwhile keeps the pings it had.
 */
export async function startPingDrain(deps: {
  bus: MessageBus;
  analytics: AnalyticsStore;
  topic: string;
  dlqTopic: string;
  groupId: string;
  log: Logger;
}): Promise<Consumer> {
  const log = deps.log.child({ component: 'ping-drain' });
  return deps.bus.consume({
    groupId: deps.groupId,
    topics: [deps.topic],
    fromBeginning: true,
    maxBatchSize: 5_000,
    retry: { initialMs: 200, maxMs: 10_000 },
    onError: (error, attempt) => log.warn({ err: error, attempt }, 'ping analytics insert failed; retrying'),
    handler: async (batch) => {
      const marked = batch.filter((message) => message.headers?.[DEFERRED_HEADER] === 'deferred');
      if (marked.length === 0) return;
      const valid = [];
      const invalid = [];
      for (const message of marked) {
        const parsed = parseCheckResultFast(parseJson(message.value));
        if (parsed.ok) valid.push(parsed.value);
        else invalid.push({ message, reason: parsed.message });
      }
      if (invalid.length > 0) {
        await deps.bus.publish(
          deps.dlqTopic,
          invalid.map(({ message, reason }) => ({
            key: message.key || 'unkeyed',
            value: message.value,
            headers: {
              reason,
              'source-topic': message.topic,
              'source-partition': String(message.partition),
              'source-offset': message.offset,
            },
          })),
        );
        log.warn({ count: invalid.length, first: invalid[0]!.reason }, 'invalid ping results sent to the DLQ');
      }
      await deps.analytics.insert(valid);
    },
  });
}
