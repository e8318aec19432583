import { request as httpRequest } from 'node:http';
import { Redis } from 'ioredis';
import kafkajs from 'kafkajs';
import { benchConfig } from '../config.ts';

/** A unique lower-case suffix for databases, topics and key prefixes of one run. */
export function runSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * Sends SQL to ClickHouse over HTTP, no client library in the way; returns the body text.
 * One connection per request: ClickHouse 18.16 closes an idle keep-alive connection after 3 s, and
 * a pooled socket reused right after a long synchronous step (building a 100,000-row body) is
 * written after the server closed it (`fetch failed … write EPIPE`). A loopback connect costs
 * far less than one INSERT.
 */
export function clickhouse(sql: string, body?: string): Promise<string> {
  const url = new URL(benchConfig.clickhouseUrl);
  if (body !== undefined) url.searchParams.set('query', sql);
  const payload = Buffer.from(body ?? sql);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { 'content-length': payload.length, connection: 'close' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((response.statusCode ?? 500) >= 300)
            reject(new Error(`ClickHouse ${response.statusCode}: ${text.slice(0, 500)}`));
          else resolve(text);
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
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
