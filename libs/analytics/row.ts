import { ValidationError } from '#core';
import type { CheckResult } from '#domain';

export const RESULTS_TABLE = 'check_results';

/**
 * One check result as a row of the wide table, with the column names both engines use.
 * Booleans are 0/1 so `sum(1 - has_failures)` reads the same everywhere. Per-page browser
 * metrics are parallel arrays (one element per page, same order) so ClickHouse can ARRAY JOIN
 * and DuckDB can UNNEST them into one row per page. A missing optional metric is NULL, never 0,
 * so it does not drag percentiles down.
 */
export interface ResultRow {
  id: string;
  account_id: string;
  check_id: string;
  check_type: string;
  /** Whole seconds; the milliseconds live in started_ms. */
  started_at: Date;
  started_ms: number;
  run_location: string;
  has_failures: 0 | 1;
  is_degraded: 0 | 1;
  response_time: number;
  attempts: number;
  error_message: string | null;
  status_code: number | null;
  status_text: string | null;
  timing_wait: number | null;
  timing_dns: number | null;
  timing_tcp: number | null;
  timing_first_byte: number | null;
  timing_download: number | null;
  timing_total: number | null;
  timing_connection: number | null;
  timing_data: number | null;
  heartbeat_status: string | null;
  ssl_days_remaining: number | null;
  ssl_domain: string | null;
  page_index: number[];
  page_url: string[];
  page_ttfb: (number | null)[];
  page_fcp: (number | null)[];
  page_lcp: (number | null)[];
  page_cls: (number | null)[];
  page_tbt: (number | null)[];
  page_console_errors: number[];
  page_network_errors: number[];
  page_user_script_errors: number[];
  page_document_errors: number[];
  /** Each assertion's outcome as JSON (the result's `assertions`, bounded there); null when the run had none. */
  assertions: string | null;
  /**
   * A script run's steps, logs, requests and runtime, and any run's artifacts, as JSON (bounded by
   * the v1 contract); null for runs with none. A document for the run view, not a column to aggregate.
   */
  script: string | null;
}

export const RESULT_COLUMNS = [
  'id',
  'account_id',
  'check_id',
  'check_type',
  'started_at',
  'started_ms',
  'run_location',
  'has_failures',
  'is_degraded',
  'response_time',
  'attempts',
  'error_message',
  'status_code',
  'status_text',
  'timing_wait',
  'timing_dns',
  'timing_tcp',
  'timing_first_byte',
  'timing_download',
  'timing_total',
  'timing_connection',
  'timing_data',
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
  'page_user_script_errors',
  'page_document_errors',
  'assertions',
  'script',
] as const satisfies readonly (keyof ResultRow)[];

/**
 * Shared by every row without pages (all but browser checks): eleven fresh empty arrays per row
 * were a good share of the embedded ingest's garbage. Frozen, since rows are only ever read.
 */
const NO_PAGES: never[] = Object.freeze([]) as unknown as never[];

export function toResultRow(result: CheckResult): ResultRow {
  const startedMs = Date.parse(result.startedAt);
  const timings = result.timings ?? {};
  const pages = result.pages && result.pages.length > 0 ? [...result.pages].sort((a, b) => a.index - b.index) : [];
  const perPage = <T>(value: (page: (typeof pages)[number]) => T): T[] =>
    pages.length === 0 ? NO_PAGES : pages.map(value);
  return {
    id: result.id,
    account_id: result.accountId,
    check_id: result.checkId,
    check_type: result.checkType,
    started_at: new Date(startedMs - (startedMs % 1000)),
    started_ms: startedMs,
    run_location: result.runLocation,
    has_failures: result.hasFailures ? 1 : 0,
    is_degraded: result.isDegraded ? 1 : 0,
    response_time: result.responseTime,
    attempts: result.attempts,
    error_message: result.errorMessage ?? null,
    status_code: result.statusCode ?? null,
    status_text: result.statusText ?? null,
    timing_wait: timings.wait ?? null,
    timing_dns: timings.dns ?? null,
    timing_tcp: timings.tcp ?? null,
    timing_first_byte: timings.firstByte ?? null,
    timing_download: timings.download ?? null,
    timing_total: timings.total ?? null,
    timing_connection: timings.connection ?? null,
    timing_data: timings.data ?? null,
    heartbeat_status: result.heartbeat?.status ?? null,
    ssl_days_remaining: result.ssl?.daysRemaining ?? null,
    ssl_domain: result.ssl?.domain ?? null,
    page_index: perPage((page) => page.index),
    page_url: perPage((page) => page.url),
    page_ttfb: perPage((page) => page.TTFB ?? null),
    page_fcp: perPage((page) => page.FCP ?? null),
    page_lcp: perPage((page) => page.LCP ?? null),
    page_cls: perPage((page) => page.CLS ?? null),
    page_tbt: perPage((page) => page.TBT ?? null),
    page_console_errors: perPage((page) => page.consoleErrors),
    page_network_errors: perPage((page) => page.networkErrors),
    page_user_script_errors: perPage((page) => page.userScriptErrors),
    page_document_errors: perPage((page) => page.documentErrors),
    assertions: result.assertions && result.assertions.length > 0 ? JSON.stringify(result.assertions) : null,
    script: scriptDocument(result),
  };
}

/** A script run's details, and any run's artifacts (named here; their bytes are in the artifact store). */
function scriptDocument(result: CheckResult): string | null {
  const { steps, logs, requests, runtimeId, artifacts } = result;
  if (
    steps === undefined &&
    logs === undefined &&
    requests === undefined &&
    runtimeId === undefined &&
    artifacts === undefined
  )
    return null;
  return JSON.stringify({ steps, logs, requests, runtimeId, artifacts });
}

/** Keeps the first occurrence of each id: the cheapest de-duplication is not sending a copy. */
export function uniqueById(results: readonly CheckResult[]): CheckResult[] {
  const seen = new Set<string>();
  const unique: CheckResult[] = [];
  for (const result of results) {
    if (seen.has(result.id)) continue;
    seen.add(result.id);
    unique.push(result);
  }
  return unique;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NUMBER_FIELDS = ['responseTime', 'attempts'] as const;

/**
 * Results reach the store already parsed (the ingestor runs parseCheckResult on every record,
 * which is where the dead-letter decision is made). Parsing again here would double the cost of
 * an insert (measured: 16k → 26k rows/s on DuckDB, 15k → 30k on ClickHouse), so the store only
 * re-checks what would corrupt the table or the de-duplication if a caller skipped parsing:
 * the ids, the start time and the numbers. The message names the position and the field.
 */
export function assertStorable(results: readonly CheckResult[]): void {
  // A plain loop with no closure per result: this runs on every row of every insert.
  for (let position = 0; position < results.length; position++) {
    const result = results[position]!;
    if (!isUuid(result.id)) unstorable(position, 'id', 'expected a lower-case UUID');
    if (!isUuid(result.accountId)) unstorable(position, 'accountId', 'expected a lower-case UUID');
    if (!isUuid(result.checkId)) unstorable(position, 'checkId', 'expected a lower-case UUID');
    const ms = typeof result.startedAt === 'string' ? Date.parse(result.startedAt) : Number.NaN;
    if (!Number.isFinite(ms) || ms < 0) unstorable(position, 'startedAt', 'expected an ISO 8601 time');
    for (const field of NUMBER_FIELDS) {
      const value = result[field];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        unstorable(position, field, 'expected a finite number >= 0');
    }
  }
}

const isUuid = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);

function unstorable(position: number, field: string, problem: string): never {
  throw new ValidationError(`results[${position}].${field}: ${problem}; pass results through parseCheckResult first`);
}
