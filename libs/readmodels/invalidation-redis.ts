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
}

/**
 * Redis pub/sub between API replicas. Pub/sub keeps nothing for a subscriber that is away, so
 * `live()` is false from the moment the subscriber's connection drops until it has subscribed
 * again; listeners run at both edges, so a cache drops what it held across the gap.
 */
export function createRedisInvalidation(options: RedisInvalidationOptions): ReadModelInvalidation {
  const channel = `${options.prefix}read-models:changed`;
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
    subscriber.subscribe(channel).then(
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
  subscriber.on('message', (from: string) => {
    if (from === channel) notify();
  });

  return {
    async publish() {
      notify();
      try {
        await publisher.publish(channel, '1');
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
