import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { ServiceEnv } from './global-setup.ts';

/** Addresses of the real services; throws (failing the suite) when they are not running. */
export function services(): ServiceEnv {
  const provided = inject('services');
  if ('error' in provided)
    throw new Error(
      `This suite needs the services of scripts/services.sh (Redis, ClickHouse, Kafka, PostgreSQL, dnsmasq, s3proxy, Chromium). ${provided.error}`,
    );
  return provided;
}

/** A short unique suffix so suites sharing one server never see each other's keys or tables. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Kafka, Redis and ClickHouse addresses with a topic prefix and database of their own, so a
 * suite running the distributed apps never reads another suite's topics or tables.
 */
export function distributedEnv(partitions = 2): Record<string, string> {
  const { REDIS_URL, KAFKA_BROKERS, CLICKHOUSE_URL } = services();
  const suffix = uniqueSuffix();
  return {
    REDIS_URL,
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    KAFKA_TOPIC_PREFIX: `t${suffix}.`,
    KAFKA_TOPIC_PARTITIONS: String(partitions),
    CLICKHOUSE_DATABASE: `vigil_test_${suffix}`,
  };
}

/**
 * Adds A/AAAA records to the test DNS server (dnsmasq re-reads DNS_HOSTS_DIR on change) and returns
 * a function that removes them. Names should carry a uniqueSuffix() so suites never collide.
 */
export async function addDnsRecords(records: Array<{ name: string; address: string }>): Promise<() => Promise<void>> {
  const dir = services().DNS_HOSTS_DIR;
  const file = join(dir, `${uniqueSuffix()}.hosts`);
  const temp = join(dir, `.${uniqueSuffix()}.tmp`);
  await writeFile(temp, records.map((r) => `${r.address} ${r.name}\n`).join(''), { mode: 0o644 });
  // A rename is one inotify event: dnsmasq never reads a half-written file.
  await rename(temp, file);
  return () => rm(file, { force: true });
}
