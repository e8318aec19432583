import { sqlDateTime, sqlNumber, sqlString, type AnalyticsStore } from '#analytics';

export const SUMMARY_HOURS = 24;
const HOUR_MS = 3_600_000;

export interface CheckSummary {
  /** Share of passing runs in the last 24 h, 0–100; null with no runs. */
  availability24h: number | null;
  /** p95 response time per hour, oldest first, 24 entries; null for an hour without runs. */
  p95Sparkline: (number | null)[];
}

/**
 * The overview's per-check numbers for a whole account in ONE query (grouped by check and
 * hour), so 1,000 checks cost one analytics round trip, not 1,000. The sparkline's p95 is the
 * engine's fast quantile (it is a picture); the check page uses the exact analytics endpoint.
 */
export async function readSummaries(
  store: AnalyticsStore,
  accountId: string,
  now: Date,
): Promise<Map<string, CheckSummary>> {
  const end = Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS;
  const start = end - SUMMARY_HOURS * HOUR_MS;
  const ch = store.dialect === 'clickhouse';
  const hour = ch ? `intDiv(started_ms, ${HOUR_MS})` : `(started_ms // ${HOUR_MS})`;
  const p95 = ch ? 'quantile(0.95)(response_time)' : 'quantile_cont(response_time, 0.95)';
  const checkId = ch ? 'toString(check_id)' : 'CAST(check_id AS VARCHAR)';
  const sql =
    `SELECT ${checkId} AS cid, ${hour} AS h, count() AS n, sum(has_failures) AS f, ${p95} AS p ` +
    `FROM ${store.source} WHERE account_id = ${sqlString(accountId, store.dialect)} ` +
    `AND started_at >= ${sqlDateTime(new Date(start))} AND started_ms >= ${sqlNumber(start)} AND started_ms < ${sqlNumber(end)} ` +
    `GROUP BY cid, h`;
  const rows = await store.query<{ cid: string; h: number; n: number; f: number; p: number | null }>(
    ch ? sql : sql.replace('count()', 'count(*)'),
  );
  const acc = new Map<string, { n: number; f: number; spark: (number | null)[] }>();
  const firstHour = start / HOUR_MS;
  for (const row of rows) {
    const entry = acc.get(row.cid) ?? { n: 0, f: 0, spark: Array<number | null>(SUMMARY_HOURS).fill(null) };
    entry.n += Number(row.n);
    entry.f += Number(row.f);
    const slot = Number(row.h) - firstHour;
    if (slot >= 0 && slot < SUMMARY_HOURS) entry.spark[slot] = row.p === null ? null : Math.round(Number(row.p));
    acc.set(row.cid, entry);
  }
  return new Map(
    [...acc].map(([id, e]) => [
      id,
      { availability24h: e.n === 0 ? null : Math.round(((e.n - e.f) / e.n) * 10_000) / 100, p95Sparkline: e.spark },
    ]),
  );
}
