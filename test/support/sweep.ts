import kafkajs from 'kafkajs';

/**
 * Suites that start the distributed apps give them a ClickHouse database and Kafka topic prefix of
 * their own (`uniqueSuffix()`), and a suite that dies or times out never drops them. On a machine
 * whose services outlive many runs, hundreds of databases and thousands of partitions pile up and
 * slow every broker and merge. Each run removes what runs before it left, once they are old enough
 * that no suite still running can own them.
 */
const OWNED = /^(?:vigil_test_|vigil_three_|t)([0-9a-z]{8})[0-9a-z]*(?:\.|$)/;
export const STALE_AFTER_MS = 6 * 3_600_000;

/** When the suffix in a test database or topic name was made, or undefined if it is not one of ours. */
export function madeAt(name: string): number | undefined {
  const match = OWNED.exec(name);
  if (match === null) return undefined;
  const at = Number.parseInt(match[1]!, 36);
  // A plain topic such as `telemetry` matches the pattern by accident: its "time" is far off.
  return at > Date.parse('2026-01-01') && at < Date.now() + 60_000 ? at : undefined;
}

export function stale(names: readonly string[], now: number, olderThanMs = STALE_AFTER_MS): string[] {
  return names.filter((name) => {
    const at = madeAt(name);
    return at !== undefined && now - at > olderThanMs;
  });
}

export async function sweepStaleTestData(urls: { CLICKHOUSE_URL: string; KAFKA_BROKERS: string }): Promise<string> {
  const now = Date.now();
  const sql = (query: string) =>
    fetch(urls.CLICKHOUSE_URL, { method: 'POST', body: query, signal: AbortSignal.timeout(30_000) }).then(
      async (response) => {
        const text = await response.text();
        if (!response.ok) throw new Error(`ClickHouse ${response.status}: ${text.slice(0, 200)}`);
        return text;
      },
    );
  const databases = stale((await sql('SELECT name FROM system.databases FORMAT TSV')).split('\n'), now);
  for (const name of databases) await sql(`DROP DATABASE IF EXISTS ${name}`);
  const admin = new kafkajs.Kafka({
    clientId: 'vigil-test-sweep',
    brokers: urls.KAFKA_BROKERS.split(','),
    logLevel: kafkajs.logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    const topics = stale(await admin.listTopics(), now);
    for (let i = 0; i < topics.length; i += 100) await admin.deleteTopics({ topics: topics.slice(i, i + 100) });
    return `removed ${databases.length} stale test databases and ${topics.length} stale test topics`;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
