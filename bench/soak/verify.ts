import kafkajs from 'kafkajs';
import { z } from 'zod';
import { parseAlertEvent } from '#alerting';
import { topics } from '#bus';
import { deliveryIdFor } from '#notify';
import { benchConfig } from '../config.ts';
import { resultId } from '../support/results.ts';
import { clickhouse, clickhouseRows } from '../support/services.ts';
import { sleep } from '../support/stats.ts';
import type { Deployment } from './deployment.ts';
import type { IngestState, Setup } from './traffic.ts';

export interface StoredResults {
  acknowledged: number;
  /** Acknowledged results not found at all. */
  missing: number;
  /** Results of batches that got no acknowledgement but were stored all the same (allowed). */
  storedUnacknowledged: number;
  /** Distinct result ids stored, and rows after de-duplication (FINAL): equal when none is doubled. */
  distinctIds: number;
  rowsFinal: number;
  /** Rows before the background merge: at-least-once redeliveries show here, never after FINAL. */
  rowsRaw: number;
  runnerResults: number;
}

const countRow = z.object({ n: z.coerce.number(), ids: z.coerce.number() });

/**
 * Waits until ClickHouse holds every acknowledged result (or nothing more arrives for 60 s), then
 * checks each acknowledged id is there, once. Filters stay on the table's key prefix (account,
 * check): on a busy ClickHouse 18.16 a FINAL scan with a LIKE on the id took a minute.
 */
export async function storedResults(d: Deployment, s: Setup, ingest: IngestState): Promise<StoredResults> {
  const table = `${d.names.database}.check_results`;
  const list = (ids: string[]) => ids.map((id) => `'${id}'`).join(',');
  const ours = `account_id = '${s.accountId}' AND check_id IN (${list(s.ingestChecks)})`;
  const counts = async (final: boolean) =>
    countRow.parse(
      (
        await clickhouseRows(
          `SELECT count() AS n, uniqExact(id) AS ids FROM ${table}${final ? ' FINAL' : ''} WHERE ${ours}`,
        )
      )[0],
    );
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const { ids } = await counts(false);
    if (ids >= ingest.sent || (ids >= ingest.acknowledged && ingest.unacknowledged.length === 0)) break;
    if (ids !== last) [last, lastChange] = [ids, Date.now()];
    if (Date.now() - lastChange > 30_000) break;
    await sleep(1000);
  }
  const final = await counts(true);
  const raw = await counts(false);
  const present = new Set(
    (await clickhouse(`SELECT DISTINCT toString(id) FROM ${table} WHERE ${ours} FORMAT TabSeparated`))
      .split('\n')
      .filter(Boolean),
  );
  const unacknowledged = new Set<number>();
  for (const [from, n] of ingest.unacknowledged) for (let i = from; i < from + n; i++) unacknowledged.add(i);
  let missing = 0;
  let storedUnacknowledged = 0;
  for (let i = 0; i < ingest.sent; i++) {
    const stored = present.has(resultId(s.shape.idPrefix, i));
    if (unacknowledged.has(i)) storedUnacknowledged += stored ? 1 : 0;
    else if (!stored) missing++;
  }
  const [runner] = s.runnerChecks.length
    ? await clickhouseRows<{ n: string }>(
        `SELECT count() AS n FROM ${table} WHERE account_id = '${s.accountId}' AND check_id IN (${list(s.runnerChecks)})`,
      )
    : [];
  return {
    acknowledged: ingest.acknowledged,
    missing,
    storedUnacknowledged,
    distinctIds: raw.ids,
    rowsFinal: final.n,
    rowsRaw: raw.n,
    runnerResults: Number(runner?.n ?? 0),
  };
}

function kafka() {
  return new kafkajs.Kafka({
    clientId: 'vigil-soak-reader',
    brokers: benchConfig.kafkaBrokers.split(','),
    logLevel: kafkajs.logLevel.NOTHING,
  });
}

/**
 * Waits until every consumer group of the deployment (ingestor, alerter, status read models,
 * dispatcher) has committed up to the end of the check-results and alert-events topics; returns
 * the remaining lag (0 when drained).
 */
export async function drainConsumers(d: Deployment, timeoutMs: number): Promise<number> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let lag = 0;
      const groups = (await admin.listGroups()).groups
        .map((g) => g.groupId)
        .filter((id) => id.startsWith(d.names.topicPrefix) && !id.includes('soak-reader'));
      for (const topic of [topics.checkResults, topics.alertEvents].map((t) => d.names.topicPrefix + t)) {
        const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
        for (const groupId of groups) {
          const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
          // A group that never read this topic lists no partitions (or -1): it is not one of its readers.
          const partitions = (committed?.partitions ?? []).filter((p) => Number(p.offset) >= 0);
          for (const p of partitions) lag += Math.max(0, (ends.get(p.partition) ?? 0) - Number(p.offset));
        }
      }
      if (lag === 0 || Date.now() > deadline) return lag;
      await sleep(1000);
    }
  } finally {
    await admin.disconnect();
  }
}

/** Every alert event the alerter published, read from the topic's start to its current end. */
export async function alertEvents(d: Deployment) {
  const topic = `${d.names.topicPrefix}${topics.alertEvents}`;
  const client = kafka();
  const admin = client.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  const total = offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  const events = new Map<string, { alertId: string; checkId: string; alertType: string; startedAt: string }>();
  let read = 0;
  let invalid = 0;
  if (total > 0) {
    const consumer = client.consumer({ groupId: `${d.names.topicPrefix}soak-reader-${Date.now()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          read++;
          const parsed = parseAlertEvent(JSON.parse(message.value?.toString() ?? 'null'));
          if (parsed.ok) events.set(parsed.value.alertId, parsed.value);
          else invalid++;
          if (read >= total) resolve();
        },
      });
    });
    await Promise.race([done, sleep(120_000)]);
    await consumer.disconnect();
  }
  return { messages: total, read, invalid, events: [...events.values()] };
}

export interface Deliveries {
  alertEvents: number;
  alertMessages: number;
  byType: Record<string, number>;
  expected: number;
  delivered: number;
  missing: number;
  unexpected: number;
  receiver: { received: number; ok: number; failed: number; duplicates: number; distinct: number };
}

const receiverStats = z.object({
  received: z.number(),
  ok: z.number(),
  failed: z.number(),
  duplicates: z.number(),
  distinct: z.number(),
});

/**
 * Expected webhook ids are derived the way the dispatcher derives them (alert id and time × channel id),
 * from every alert on the topic: retries of one id count once. Waits up to `waitMs` for stragglers
 * (retries are due every few seconds).
 */
export async function deliveries(d: Deployment, s: Setup, waitMs: number): Promise<Deliveries> {
  const { events, messages, read } = await alertEvents(d);
  if (read < messages) throw new Error(`read ${read} of ${messages} alert messages`);
  const alerting = new Set(s.alertingChecks);
  const wanted = events.filter((e) => alerting.has(e.checkId) && e.alertType !== 'ALERT_SSL');
  const expected = new Set(wanted.flatMap((e) => s.channelIds.map((channel) => deliveryIdFor(e, channel))));
  const byType: Record<string, number> = {};
  for (const e of events) byType[e.alertType] = (byType[e.alertType] ?? 0) + 1;
  const fetchIds = async () => new Set(z.array(z.string()).parse(await (await fetch(`${d.receiverUrl}/ids`)).json()));
  const deadline = Date.now() + waitMs;
  let got = await fetchIds();
  const missingOf = (have: Set<string>) => [...expected].filter((id) => !have.has(id)).length;
  while (missingOf(got) > 0 && Date.now() < deadline) {
    await sleep(2000);
    got = await fetchIds();
  }
  const stats = receiverStats.parse(await (await fetch(`${d.receiverUrl}/stats`)).json());
  return {
    alertEvents: events.length,
    alertMessages: messages,
    byType,
    expected: expected.size,
    delivered: [...expected].filter((id) => got.has(id)).length,
    missing: missingOf(got),
    unexpected: [...got].filter((id) => !expected.has(id)).length,
    receiver: stats,
  };
}
