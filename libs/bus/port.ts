/**
 * The message bus: named topics split into partitions, keyed messages, consumer groups.
 *
 * Messages with the same key land on the same partition of a topic, and a partition is read
 * in offset order, so per-key order holds from publish to handler. Delivery is at-least-once:
 * a group's position (its committed offset) moves only after the handler resolved, so a crash
 * or a rebalance can deliver a batch again but never loses one. Handlers must be idempotent.
 */
export interface BusMessage {
  /** Decides the partition (Kafka's murmur2 of the key, modulo the partition count). */
  key: string;
  value: string;
  headers?: Record<string, string>;
}

export interface ConsumedMessage extends BusMessage {
  topic: string;
  partition: number;
  /** A decimal string: Kafka offsets are 64-bit. Increases within a partition. */
  offset: string;
  /** Milliseconds since the epoch, when the message was appended. */
  timestamp: number;
}

export interface TopicSpec {
  name: string;
  partitions: number;
}

export interface HandlerContext {
  /** Aborts when the consumer is stopping. A handler may cut work short and throw; the batch is then redelivered later. */
  signal: AbortSignal;
  /** 1 on the first delivery of this batch to this consumer, then 2, 3, … on each retry. */
  attempt: number;
}

export interface RetryPolicy {
  /** Backoff before the first retry; it doubles on each failure up to maxMs. */
  initialMs: number;
  maxMs: number;
}

export interface ConsumeOptions {
  groupId: string;
  topics: string[];
  /**
   * Where a group with no committed offset for a partition starts: at the oldest retained
   * message (true, the default, so nothing accepted before the group existed is missed) or at
   * the end of the log (false).
   */
  fromBeginning?: boolean;
  /** Most messages per handler call (default 500). */
  maxBatchSize?: number;
  /**
   * Partitions handled at once by this consumer (Kafka only; default 1). Above 1 the handler may
   * run concurrently for different partitions: only for handlers whose batches are independent.
   */
  partitionsConcurrently?: number;
  /**
   * Called with messages from ONE partition, in offset order. The batch's offsets are committed
   * only after it resolves. If it throws, the same batch is delivered again after a backoff,
   * forever, until it succeeds or the consumer stops (or the partition moves to another member
   * of the group, which then starts from the last commit): it never skips a message and never
   * crash-loops. A handler that wants to give up on a poison message must route it somewhere
   * (a DLQ) itself and then resolve.
   *
   * One consumer calls its handler for one batch at a time, so a batch that keeps failing holds
   * up this consumer's other partitions too (not other members of the group).
   */
  handler: (batch: ConsumedMessage[], ctx: HandlerContext) => Promise<void>;
  retry?: RetryPolicy;
  /** Told about each failed attempt (the adapter also logs it at warn). */
  onError?: (error: unknown, attempt: number) => void;
}

export interface Consumer {
  /** Lets the in-flight batch finish, commits what succeeded, leaves the group. Idempotent. */
  stop(): Promise<void>;
}

export interface PublishOptions {
  /**
   * Kafka: fail with UnavailableError once the broker has acknowledged nothing of this publish's
   * producer for this long (default 10 s; the HTTP ingest passes its own short deadline). The
   * embedded bus writes a local file and ignores it.
   */
  timeoutMs?: number;
}

export interface MessageBus {
  /** Creates missing topics; an existing topic keeps its partition count. Idempotent. */
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /**
   * Appends the messages; resolves only when they are durable (Kafka: acknowledged by all
   * in-sync replicas). Messages of one call keep their order per key. Rejects with
   * UnavailableError when the bus cannot be reached; the caller may retry (at-least-once).
   */
  publish(topic: string, messages: BusMessage[], options?: PublishOptions): Promise<void>;
  /** Joins the group and resolves once the consumer is running. */
  consume(options: ConsumeOptions): Promise<Consumer>;
  /** Resolves when the bus answers; rejects with UnavailableError otherwise. */
  ping(): Promise<void>;
  /** Stops every consumer started by this bus, then releases connections. */
  close(): Promise<void>;
}
