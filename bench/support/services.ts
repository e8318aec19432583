import { Redis } from 'ioredis';
import kafkajs from 'kafkajs';
import { benchConfig } from '../config.ts';

/** A unique lower-case suffix for databases, topics and key prefixes of one run. */
export function runSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Sends SQL to ClickHouse over HTTP, no client library in the way; returns the body text. */
export async function clickhouse(sql: string, body?: string): Promise<string> {
  const url =
    body === undefined ? benchConfig.clickhouseUrl : `${benchConfig.clickhouseUrl}/?query=${encodeURIComponent(sql)}`;
  const response = await fetch(url, { method: 'POST', body: body ?? sql });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse ${response.status}: ${text.slice(0, 500)}`);
  return text;
}

export async function clickhouseRows<T>(sql: string): Promise<T[]> {
  const text = await clickhouse(`${sql} FORMAT JSONEachRow`);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

/** Removes what a run left on the shared servers: its database, topics and Redis keys. */
export async function cleanUp(what: { database?: string; topicPrefix?: string; redisPrefix?: string }): Promise<void> {
  if (what.database) await clickhouse(`DROP DATABASE IF EXISTS ${what.database}`).catch(() => undefined);
  if (what.topicPrefix) {
    const admin = new kafkajs.Kafka({
      clientId: 'vigil-bench',
      brokers: benchConfig.kafkaBrokers.split(','),
      logLevel: kafkajs.logLevel.NOTHING,
    }).admin();
    try {
      await admin.connect();
      const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(what.topicPrefix!));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } catch {
      // best effort
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
  if (what.redisPrefix) {
    const redis = new Redis(benchConfig.redisUrl, { lazyConnect: true });
    try {
      await redis.connect();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${what.redisPrefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } catch {
      // best effort
    } finally {
      redis.disconnect();
    }
  }
}
