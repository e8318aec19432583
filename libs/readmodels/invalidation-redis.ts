import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { UnavailableError, type Logger } from '#core';
import type { ReadModelInvalidation } from './invalidation.ts';

export interface RedisInvalidationOptions {
  url: string;
  /** The deployment's key prefix: replicas sharing it share the channel (and name the connections after it). */
  prefix: string;
  log: Logger;
  /** A publish without a reply after this long fails. */
  commandTimeoutMs?: number;
  /** How long a publish waits for the other replicas to confirm their drop before it goes on (the TTL covers the rest). */
  ackTimeoutMs?: number;
}

/**
 * Redis pub/sub between API replicas. Pub/sub keeps nothing for a subscriber that is away, so
 * `live()` is false from the moment the subscriber's connection drops until it has subscribed
 * again; listeners run at both edges, so a cache drops what it held across the gap.
 *
 * A message reaches another process on another socket than PUBLISH's reply, so without more a
 * writer could answer its client, and that client reach another replica, before the replica had
 * read the message. Each replica therefore confirms every change once its listeners have run,
 * and `publish()` returns when as many confirmations arrived as Redis delivered the message to.
 */
export function createRedisInvalidation(options: RedisInvalidationOptions): ReadModelInvalidation {
  const channel = `${options.prefix}read-models:changed`;
  const ackChannel = `${options.prefix}read-models:changed:ack`;
  const ackTimeoutMs = options.ackTimeoutMs ?? 1000;
  /** Publishes of this process awaiting confirmations, by nonce. */
  const pending = new Map<string, { heard: number; expected: number; done: () => void }>();
  const log = options.log.child({ component: 'read-model-invalidation' });
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  let subscribed = false;
  let closing = false;

  // CLIENT SETNAME refuses spaces and newlines; the name lets an operator (or a test) find the connection.
  const name = `${options.prefix}read-model-invalidation`.replace(/[^\x21-\x7e]/g, '_');
  const subscriber = new Redis(options.url, {
    connectionName: `${name}:sub`,
    // Resubscribing is done here, so that `live()` turns true only once SUBSCRIBE is confirmed.
    autoResubscribe: false,
    maxRetriesPerRequest: null,
  });
  const publisher = new Redis(options.url, {
    connectionName: `${name}:pub`,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 2000,
  });

  const interrupted = (reason: string) => {
    if (subscribed) log.warn({ reason }, 'invalidation subscriber lost; caches read through until it is back');
    subscribed = false;
    notify();
  };
  subscriber.on('ready', () => {
    subscriber.subscribe(channel, ackChannel).then(
      () => {
        if (closing) return;
        subscribed = true;
        notify();
        log.debug({ channel }, 'invalidation subscriber ready');
      },
      (error: unknown) => log.warn({ err: error }, 'invalidation subscribe failed; retrying on reconnect'),
    );
  });
  subscriber.on('close', () => interrupted('connection closed'));
  subscriber.on('end', () => interrupted('connection ended'));
  subscriber.on('error', (error: Error) => log.warn({ err: error }, 'invalidation subscriber error'));
  publisher.on('error', (error: Error) => log.warn({ err: error }, 'invalidation publisher error'));
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel) {
      notify();
      publisher.publish(ackChannel, message).catch((error: unknown) => {
        log.warn({ err: error }, 'invalidation confirmation not sent; the writer waits out its timeout');
      });
    } else if (from === ackChannel) {
      const waiting = pending.get(message);
      if (waiting === undefined) return;
      waiting.heard++;
      if (waiting.heard >= waiting.expected) waiting.done();
    }
  });

  async function confirmed(publish: (nonce: string) => Promise<number>): Promise<void> {
    const nonce = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const waiting = { heard: 0, expected: Number.POSITIVE_INFINITY, done: () => {} };
    const all = new Promise<void>((resolve) => {
      waiting.done = resolve;
    });
    pending.set(nonce, waiting);
    try {
      // Registered before publishing: a fast replica's confirmation may beat PUBLISH's own reply.
      waiting.expected = await publish(nonce);
      if (waiting.heard >= waiting.expected) return;
      const timedOut = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), ackTimeoutMs);
      });
      if (await Promise.race([all.then(() => false), timedOut])) {
        log.warn(
          { expected: waiting.expected, heard: waiting.heard, timeoutMs: ackTimeoutMs },
          'not every replica confirmed a read-model change in time; they answer from memory until their TTL at most',
        );
      }
    } finally {
      clearTimeout(timer);
      pending.delete(nonce);
    }
  }

  return {
    async publish() {
      notify();
      try {
        await confirmed((nonce) => publisher.publish(channel, nonce));
      } catch (error) {
        throw new UnavailableError(`Redis is unavailable (publish read-model invalidation): ${String(error)}`, {
          cause: error,
        });
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    live: () => subscribed,
    async close() {
      closing = true;
      subscribed = false;
      // QUIT would wait in the offline queue for a Redis that is down; then just drop the socket.
      await Promise.all(
        [subscriber, publisher].map(async (connection) => {
          if (connection.status !== 'ready') return connection.disconnect();
          await connection.quit().catch(() => connection.disconnect());
        }),
      );
    },
  };
}
