import type { Admin, Consumer as KafkaConsumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from '#core';
import { backoffMs, defaultRetry, type ResolvedConsumeOptions } from './common.ts';
import { deliver } from './deliver.ts';
import { kafkaErrorTypes, toConsumedMessage, translateKafkaError } from './kafka-support.ts';
import type { Consumer } from './port.ts';

export interface KafkaConsumerTimings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  rebalanceTimeoutMs: number;
  /** Longest fetch long-poll; it also bounds how long stop() waits for an idle consumer. */
  maxWaitTimeMs: number;
}

/**
 * One group member on kafkajs. eachBatch hands the handler chunks of at most maxBatchSize
 * messages; after a chunk succeeds its last offset is resolved and committed at once
 * (autoCommitThreshold 1). A failing chunk is retried inside the same eachBatch call, with
 * heartbeats and the partition paused, so kafkajs never moves past it. If a heartbeat reports
 * a rebalance, the error goes back to kafkajs, which rejoins; the next owner starts from the
 * last commit.
 *
 * kafkajs fetches again only after every batch of the previous fetch was handled, so a
 * partition stuck in retries holds up this member's other partitions (not other members).
 */
export async function startKafkaConsumer(
  kafka: Kafka,
  admin: () => Promise<Admin>,
  options: ResolvedConsumeOptions,
  timings: KafkaConsumerTimings,
  parentLog: Logger,
): Promise<Consumer> {
  const log = parentLog.child({ groupId: options.groupId });
  const controller = new AbortController();
  const { signal } = controller;
  // fromBeginning: false is done here, not by kafkajs: it would look up the log end only at the
  // first fetch, after consume() resolved, and skip what was published in between.
  const skipBelow = options.fromBeginning ? new Map<string, bigint>() : await logEnds(admin, options);

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale, pause } = payload;
    const floor = skipBelow.get(`${batch.topic}:${batch.partition}`);
    let messages = batch.messages.map((message) => toConsumedMessage(batch.topic, batch.partition, message));
    if (floor !== undefined) {
      const skipped = messages.filter((message) => BigInt(message.offset) < floor);
      messages = messages.slice(skipped.length);
      const lastSkipped = skipped[skipped.length - 1];
      if (lastSkipped) {
        resolveOffset(lastSkipped.offset);
        await commitOffsetsIfNecessary();
      }
    }
    for (let start = 0; start < messages.length; start += options.maxBatchSize) {
      if (signal.aborted || !isRunning() || isStale()) return;
      const chunk = messages.slice(start, start + options.maxBatchSize);
      let resume: (() => void) | undefined;
      let done: boolean;
      try {
        done = await deliver(
          chunk,
          options,
          {
            signal,
            stillOwned: () => isRunning() && !isStale(),
            keepAlive: async () => {
              resume ??= pause();
              await heartbeat();
            },
            keepAliveMs: timings.heartbeatIntervalMs,
          },
          log,
        );
      } finally {
        resume?.();
      }
      if (!done) return;
      resolveOffset(chunk[chunk.length - 1]!.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  let current: KafkaConsumer | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let restarts = 0;

  async function startMember(): Promise<KafkaConsumer> {
    const consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: timings.sessionTimeoutMs,
      heartbeatInterval: timings.heartbeatIntervalMs,
      rebalanceTimeout: timings.rebalanceTimeoutMs,
      maxWaitTimeInMs: timings.maxWaitTimeMs,
      // Larger fetches give the handler thousands of records per call, so inserts are large.
      maxBytesPerPartition: 8 * 1024 * 1024,
      maxBytes: 32 * 1024 * 1024,
      retry: { restartOnFailure: async () => !signal.aborted },
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (signal.aborted) return;
      const fields = { err: payload.error, restart: payload.restart };
      if (payload.restart) log.warn(fields, 'Kafka consumer crashed; kafkajs restarts it');
      else log.error(fields, 'Kafka consumer crashed; starting a new member');
      // kafkajs restarts itself after retriable crashes; after the others we start a new member.
      if (!payload.restart) scheduleRestart();
    });
    try {
      await consumer.connect();
      // Always from the beginning: a group without commits on a partition either wants it all,
      // or is covered by skipBelow (or the partition did not exist at consume() time).
      await consumer.subscribe({ topics: options.topics, fromBeginning: true });
      await consumer.run({
        autoCommit: true,
        autoCommitThreshold: 1,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
        eachBatch,
      });
      return consumer;
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw translateKafkaError(error, 'consume');
    }
  }

  function scheduleRestart(): void {
    restarts += 1;
    const delay = backoffMs(restarts, defaultRetry);
    clearTimeout(restartTimer);
    restartTimer = setTimeout(() => {
      void (async () => {
        const old = current;
        current = undefined;
        await old?.disconnect().catch(() => undefined);
        if (signal.aborted) return;
        try {
          current = await startMember();
          restarts = 0;
        } catch (error) {
          log.error({ err: error, restarts }, 'Kafka consumer restart failed');
          if (!signal.aborted) scheduleRestart();
        }
      })();
    }, delay);
  }

  current = await startMember();
  log.debug({ topics: options.topics }, 'Kafka consumer started');

  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        controller.abort();
        clearTimeout(restartTimer);
        try {
          // Waits for the in-flight batch, commits, leaves the group.
          await current?.disconnect();
        } catch (error) {
          log.warn({ err: error }, 'Kafka consumer did not disconnect cleanly');
        }
        log.debug('Kafka consumer stopped');
      })();
      return stopping;
    },
  };
}

/**
 * For a group starting at the end of the log: the log end of every partition the group has
 * no committed offset for. Messages below it are committed without reaching the handler.
 */
async function logEnds(connect: () => Promise<Admin>, options: ResolvedConsumeOptions): Promise<Map<string, bigint>> {
  const ends = new Map<string, bigint>();
  try {
    const admin = await connect();
    const committed = await admin.fetchOffsets({ groupId: options.groupId, topics: options.topics });
    for (const { topic, partitions } of committed) {
      const fresh = new Set(partitions.filter((entry) => entry.offset === '-1').map((entry) => entry.partition));
      if (fresh.size === 0) continue;
      for (const entry of await admin.fetchTopicOffsets(topic)) {
        if (fresh.has(entry.partition)) ends.set(`${topic}:${entry.partition}`, BigInt(entry.high));
      }
    }
  } catch (error) {
    // A topic that does not exist yet has no messages to skip.
    if (kafkaErrorTypes(error).includes('UNKNOWN_TOPIC_OR_PARTITION')) return ends;
    throw translateKafkaError(error, 'consume');
  }
  return ends;
}
