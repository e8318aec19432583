import kafkajs, { type Admin, type Message, type Producer } from 'kafkajs';
import { UnavailableError, type Logger } from '#core';
import { checkMessages, checkTopicSpecs, resolveConsumeOptions } from './common.ts';
import { startKafkaConsumer, type KafkaConsumerTimings } from './kafka-consumer.ts';
import { KafkaOutage, untilAcknowledged } from './kafka-health.ts';
import { kafkaLogCreator, translateKafkaError } from './kafka-support.ts';
import type { BusMessage, Consumer, MessageBus } from './port.ts';

const { Kafka, Partitioners, logLevel } = kafkajs;

export interface KafkaBusOptions extends Partial<KafkaConsumerTimings> {
  brokers: string[];
  clientId: string;
  log: Logger;
  /** Replicas of topics created by ensureTopics; -1 (default) takes the broker's default.replication.factor. */
  replicationFactor?: number;
  connectionTimeoutMs?: number;
  /** How long ping waits before reporting Kafka unavailable (default 1.5 s, under /ready's own 2 s). */
  pingTimeoutMs?: number;
  /**
   * A publish fails with UnavailableError when its producer has had no acknowledgement for this
   * long (default 10 s; a publish may ask for less, as the HTTP ingest does, to answer 503 within
   * its deadline). Publishes then fail at once until a probe finds the cluster again.
   */
  publishTimeoutMs?: number;
  /** Pause between probes while Kafka is unavailable (default 500 ms). */
  probeIntervalMs?: number;
  /**
   * Idempotent producers used side by side (default 4). Each sends one request at a time, so
   * concurrent publishes (several HTTP ingest requests) would otherwise queue behind one another.
   */
  producers?: number;
}

// A whole request stays under the broker's default 1 MiB batch limit even when every message
// shares one partition; fewer, fuller requests matter because the idempotent producer sends one at a time.
const chunkMessages = 10_000;
const chunkBytes = 960 * 1024;

interface ProducerEntry {
  producer: Producer;
  ready: Promise<void>;
  inFlight: number;
  retired: boolean;
  /** When this producer last had a send acknowledged (or was created): its progress. */
  lastAckAt: number;
}

/**
 * The distributed bus on Kafka (kafkajs).
 *
 * Keys are placed by Partitioners.DefaultPartitioner: murmur2 of the key, like the Java client,
 * so Java and kafkajs producers agree. kcat must be run with `-X partitioner=murmur2_random`
 * to put a key on the same partition; its default (consistent_random, CRC32) does not.
 */
export function createKafkaBus(options: KafkaBusOptions): MessageBus {
  const log = options.log.child({ component: 'bus', adapter: 'kafka' });
  const timings: KafkaConsumerTimings = {
    sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 1_000,
    rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 20_000,
    maxWaitTimeMs: options.maxWaitTimeMs ?? 500,
  };
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    // Bounded, so an unreachable cluster surfaces as UnavailableError within seconds.
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 5 },
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(log.child({ driver: 'kafkajs' })),
  });

  // Per-key order holds with a pool: one publish sends its chunks in sequence, each acknowledged
  // before the next, and concurrent publishes never had an order between them.
  const slots: (ProducerEntry | undefined)[] = Array.from(
    { length: Math.max(1, options.producers ?? 4) },
    () => undefined,
  );
  function producer(): ProducerEntry {
    const empty = slots.indexOf(undefined);
    const idle = slots.find((entry) => entry !== undefined && entry.inFlight === 0);
    if (idle) return idle;
    if (empty === -1) return slots.reduce((a, b) => (b!.inFlight < a!.inFlight ? b : a))!;
    const created = kafka.producer({
      // Idempotence makes the producer's own retries safe (no duplicates, no reordering);
      // it requires acks -1. Its retries are bounded (see kafkaLogCreator) and a producer that
      // failed is replaced, so a later send never reuses a sequence number the broker has seen.
      idempotent: true,
      maxInFlightRequests: 1,
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    const entry: ProducerEntry = {
      producer: created,
      ready: created.connect(),
      inFlight: 0,
      retired: false,
      lastAckAt: Date.now(),
    };
    entry.ready.catch(() => retire(entry));
    slots[empty] = entry;
    return entry;
  }

  function retire(entry: ProducerEntry): void {
    entry.retired = true;
    const slot = slots.indexOf(entry);
    if (slot !== -1) slots[slot] = undefined;
    if (entry.inFlight === 0) entry.producer.disconnect().catch(() => undefined);
  }

  let adminClient: Promise<Admin> | undefined;
  function admin(): Promise<Admin> {
    if (!adminClient) {
      const created = kafka.admin({ retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 } });
      const ready = created.connect().then(() => created);
      adminClient = ready;
      ready.catch(() => {
        if (adminClient === ready) adminClient = undefined;
      });
    }
    return adminClient;
  }

  async function withAdmin<T>(what: string, call: (client: Admin) => Promise<T>): Promise<T> {
    const pending = admin();
    try {
      return await call(await pending);
    } catch (error) {
      const translated = translateKafkaError(error, what);
      if (translated instanceof UnavailableError && adminClient === pending) {
        // Start from a fresh connection next time rather than trust a broken one.
        adminClient = undefined;
        pending.then((client) => client.disconnect()).catch(() => undefined);
      }
      throw translated;
    }
  }

  async function waitForLeaders(client: Admin, topics: string[]): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { topics: metadata } = await client.fetchTopicMetadata({ topics });
      const ready = metadata.every(
        (topic) => topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0),
      );
      if (ready) return;
      if (Date.now() > deadline) throw new UnavailableError(`Kafka topics ${topics.join(', ')} have no leaders yet`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const pingTimeoutMs = options.pingTimeoutMs ?? 1_500;
  const publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
  async function describeCluster(what: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new UnavailableError(`Kafka did not answer within ${pingTimeoutMs} ms`)),
        pingTimeoutMs,
      );
    });
    try {
      await Promise.race([withAdmin(what, (client) => client.describeCluster()), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
  const outage = new KafkaOutage(() => describeCluster('probe'), log, options.probeIntervalMs ?? 500);

  const consumers = new Set<Consumer>();
  let closed = false;
  function ensureOpen(): void {
    if (closed) throw new UnavailableError('the message bus is closed');
  }

  return {
    async ensureTopics(specs) {
      ensureOpen();
      checkTopicSpecs(specs);
      if (specs.length === 0) return;
      await withAdmin('ensureTopics', async (client) => {
        const existing = new Set(await client.listTopics());
        const missing = specs.filter((spec) => !existing.has(spec.name));
        if (missing.length > 0) {
          const replicationFactor = options.replicationFactor ?? -1;
          // false means another client created them meanwhile: fine, that is the goal.
          await client.createTopics({
            topics: missing.map((spec) => ({ topic: spec.name, numPartitions: spec.partitions, replicationFactor })),
            waitForLeaders: true,
            timeout: 15_000,
          });
          log.info({ topics: missing }, 'Kafka topics created');
        }
        await waitForLeaders(
          client,
          specs.map((spec) => spec.name),
        );
      });
    },

    async publish(topic, messages, publishOptions) {
      ensureOpen();
      checkMessages(topic, messages);
      outage.check();
      for (const chunk of chunks(messages)) {
        const entry = producer();
        entry.inFlight += 1;
        const sending = entry.ready.then(() =>
          entry.producer.send({ topic, acks: -1, messages: chunk.map(toKafkaMessage) }),
        );
        try {
          await untilAcknowledged(sending, () => entry.lastAckAt, publishOptions?.timeoutMs ?? publishTimeoutMs);
          entry.lastAckAt = Date.now();
        } catch (error) {
          // Retiring disconnects the producer, which also ends a send still waiting on the broker.
          sending.catch(() => undefined);
          retire(entry);
          const translated = translateKafkaError(error, 'publish');
          if (translated instanceof UnavailableError) outage.report(translated.message);
          throw translated;
        } finally {
          entry.inFlight -= 1;
          if (entry.retired && entry.inFlight === 0) entry.producer.disconnect().catch(() => undefined);
        }
      }
    },

    async consume(consumeOptions) {
      ensureOpen();
      const resolved = resolveConsumeOptions(consumeOptions);
      const consumer = await startKafkaConsumer(kafka, () => admin(), resolved, timings, log);
      const tracked: Consumer = {
        async stop() {
          await consumer.stop();
          consumers.delete(tracked);
        },
      };
      consumers.add(tracked);
      return tracked;
    },

    async ping() {
      ensureOpen();
      outage.check();
      await describeCluster('ping');
    },

    async close() {
      if (closed) return;
      closed = true;
      outage.stop();
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      const entries = slots.splice(0, slots.length, ...slots.map(() => undefined));
      await Promise.all(entries.map((entry) => entry?.producer.disconnect().catch(() => undefined)));
      const client = adminClient;
      adminClient = undefined;
      await client?.then((ready) => ready.disconnect()).catch(() => undefined);
    },
  };
}

function toKafkaMessage(message: BusMessage): Message {
  return message.headers
    ? { key: message.key, value: message.value, headers: message.headers }
    : { key: message.key, value: message.value };
}

function* chunks(messages: BusMessage[]): Generator<BusMessage[]> {
  let chunk: BusMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = message.key.length + message.value.length;
    if (chunk.length > 0 && (chunk.length >= chunkMessages || bytes + size > chunkBytes)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(message);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}
