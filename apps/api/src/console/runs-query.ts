import { z } from 'zod';
import { sqlDateTime, sqlNumber, sqlString, type AnalyticsStore } from '#analytics';
import { ValidationError } from '#core';
import { assertionOutcomeSchema, scriptDetailsSchema, type AssertionOutcomeRecord, type ScriptDetails } from '#domain';

/** One stored run as the console's run table and drawer show it. */
export interface RunRow {
  id: string;
  startedAt: string;
  runLocation: string;
  hasFailures: boolean;
  isDegraded: boolean;
  responseTime: number;
  attempts: number;
  errorMessage: string | null;
  statusCode: number | null;
  statusText: string | null;
  timings: Record<string, number | null>;
  heartbeatStatus: string | null;
  ssl: { daysRemaining: number; domain: string | null } | null;
  pages: {
    index: number;
    url: string;
    TTFB: number | null;
    FCP: number | null;
    LCP: number | null;
    CLS: number | null;
    TBT: number | null;
    consoleErrors: number;
    networkErrors: number;
  }[];
  /** One run only (not lists): each assertion's stored outcome; null when the run stored none. */
  assertions?: AssertionOutcomeRecord[] | null;
  /** One script run only: its steps, logs, requests and runtime, as stored. */
  steps?: ScriptDetails['steps'];
  logs?: ScriptDetails['logs'];
  requests?: ScriptDetails['requests'];
  runtimeId?: ScriptDetails['runtimeId'];
  artifacts?: ScriptDetails['artifacts'];
}

export interface RunsFilter {
  accountId: string;
  checkId: string;
  from?: Date | undefined;
  to?: Date | undefined;
  location?: string | undefined;
  hasFailures?: boolean | undefined;
  cursor?: string | undefined;
  limit: number;
  /** Rows to skip first (page numbers); the cursor is the stable way, this one is Checkly's. */
  offset?: number | undefined;
}

const TIMINGS = ['wait', 'dns', 'tcp', 'firstByte', 'download', 'total', 'connection', 'data'] as const;
const timingColumn = (name: (typeof TIMINGS)[number]) =>
  `timing_${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;

const COLUMNS = [
  'started_ms',
  'run_location',
  'has_failures',
  'is_degraded',
  'response_time',
  'attempts',
  'error_message',
  'status_code',
  'status_text',
  ...TIMINGS.map(timingColumn),
  'heartbeat_status',
  'ssl_days_remaining',
  'ssl_domain',
  'page_index',
  'page_url',
  'page_ttfb',
  'page_fcp',
  'page_lcp',
  'page_cls',
  'page_tbt',
  'page_console_errors',
  'page_network_errors',
];

/** The cursor is the last row's (time, id): stable under concurrent inserts, unlike page numbers. */
export function encodeCursor(ms: number, id: string): string {
  return Buffer.from(`${ms}:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { ms: number; id: string } {
  const match = /^(\d{1,15}):([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new ValidationError('cursor: not a cursor this API issued');
  return { ms: Number(match[1]), id: match[2]! };
}

function idExpr(store: AnalyticsStore): string {
  return store.dialect === 'clickhouse' ? 'toString(id)' : 'CAST(id AS VARCHAR)';
}

function whereClause(store: AnalyticsStore, filter: Omit<RunsFilter, 'limit' | 'cursor' | 'offset'>): string[] {
  const d = store.dialect;
  const where = [`account_id = ${sqlString(filter.accountId, d)}`, `check_id = ${sqlString(filter.checkId, d)}`];
  if (filter.from) {
    where.push(`started_at >= ${sqlDateTime(new Date(Math.floor(filter.from.getTime() / 1000) * 1000))}`);
    where.push(`started_ms >= ${sqlNumber(filter.from.getTime())}`);
  }
  if (filter.to) {
    where.push(`started_at <= ${sqlDateTime(filter.to)}`);
    where.push(`started_ms < ${sqlNumber(filter.to.getTime())}`);
  }
  if (filter.location) where.push(`run_location = ${sqlString(filter.location, d)}`);
  if (filter.hasFailures !== undefined) where.push(`has_failures = ${filter.hasFailures ? 1 : 0}`);
  return where;
}

/** Raw runs, newest first, one page after the cursor; nextCursor is null on the last page. */
export async function readRuns(
  store: AnalyticsStore,
  filter: RunsFilter,
): Promise<{ items: RunRow[]; nextCursor: string | null }> {
  const id = idExpr(store);
  const where = whereClause(store, filter);
  if (filter.cursor) {
    const c = decodeCursor(filter.cursor);
    where.push(
      `(started_ms < ${sqlNumber(c.ms)} OR (started_ms = ${sqlNumber(c.ms)} AND ${id} < ${sqlString(c.id, store.dialect)}))`,
    );
  }
  const sql = `SELECT ${id} AS rid, ${COLUMNS.join(', ')} FROM ${store.source} WHERE ${where.join(' AND ')} ORDER BY started_ms DESC, rid DESC LIMIT ${sqlNumber(filter.limit + 1)} OFFSET ${sqlNumber(filter.offset ?? 0)}`;
  const rows = await store.query(sql);
  const items = rows.slice(0, filter.limit).map(toRun);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > filter.limit && last ? encodeCursor(Date.parse(last.startedAt), last.id) : null,
  };
}

export async function readRun(
  store: AnalyticsStore,
  scope: { accountId: string; checkId: string; resultId: string },
): Promise<RunRow | null> {
  const id = idExpr(store);
  const where = [...whereClause(store, scope), `${id} = ${sqlString(scope.resultId, store.dialect)}`];
  const rows = await store.query(
    `SELECT ${id} AS rid, ${COLUMNS.join(', ')}, assertions, script FROM ${store.source} WHERE ${where.join(' AND ')} LIMIT 1`,
  );
  return rows[0]
    ? { ...toRun(rows[0]), assertions: storedAssertions(rows[0].assertions), ...storedScript(rows[0].script) }
    : null;
}

/** A script run's stored details, validated on the way out; a row that does not parse shows none. */
function storedScript(value: unknown): ScriptDetails {
  if (typeof value !== 'string' || value === '') return {};
  try {
    const parsed = scriptDetailsSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

const storedOutcomes = z.array(assertionOutcomeSchema);

/** The stored JSON, validated like every read-back: a row that does not parse shows no outcomes, not a 500. */
function storedAssertions(value: unknown): AssertionOutcomeRecord[] | null {
  if (typeof value !== 'string' || value === '') return null;
  try {
    const parsed = storedOutcomes.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : String(v));
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function toRun(row: Record<string, unknown>): RunRow {
  const indexes = arr(row.page_index);
  const at = (name: string, i: number) => num(arr(row[name])[i]);
  return {
    id: String(row.rid),
    startedAt: new Date(Number(row.started_ms)).toISOString(),
    runLocation: String(row.run_location),
    hasFailures: Number(row.has_failures) === 1,
    isDegraded: Number(row.is_degraded) === 1,
    responseTime: Number(row.response_time),
    attempts: Number(row.attempts),
    errorMessage: str(row.error_message),
    statusCode: num(row.status_code),
    statusText: str(row.status_text),
    timings: Object.fromEntries(TIMINGS.map((name) => [name, num(row[timingColumn(name)])])),
    heartbeatStatus: str(row.heartbeat_status),
    ssl:
      row.ssl_days_remaining === null || row.ssl_days_remaining === undefined
        ? null
        : { daysRemaining: Number(row.ssl_days_remaining), domain: str(row.ssl_domain) },
    pages: indexes.map((index, i) => ({
      index: Number(index),
      url: String(arr(row.page_url)[i] ?? ''),
      TTFB: at('page_ttfb', i),
      FCP: at('page_fcp', i),
      LCP: at('page_lcp', i),
      CLS: at('page_cls', i),
      TBT: at('page_tbt', i),
      consoleErrors: at('page_console_errors', i) ?? 0,
      networkErrors: at('page_network_errors', i) ?? 0,
    })),
  };
}
