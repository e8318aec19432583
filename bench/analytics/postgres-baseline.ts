import { copyIn, psql } from '../support/postgres.ts';
import { makeResults, type Shape } from '../support/results.ts';

/**
 * The PostgreSQL baseline: what a team would write instead. A plain table of the same rows, an
 * index on (account, check, started_at), and one hand-written query per analytics request with
 * percentile_cont for the percentiles.
 */
export const PG_DATABASE = 'postgres';

export async function loadPostgres(sets: { shape: Shape; rows: number }[]): Promise<number> {
  const started = performance.now();
  await psql(PG_DATABASE, 'DROP TABLE IF EXISTS bench_check_results');
  await psql(
    PG_DATABASE,
    `CREATE TABLE bench_check_results (
      id uuid, account_id uuid, check_id uuid, started_at timestamptz, run_location text,
      has_failures smallint, response_time double precision, attempts integer, status_code integer,
      timing_wait double precision, timing_dns double precision, timing_tcp double precision,
      timing_first_byte double precision, timing_download double precision)`,
  );
  function* csv(shape: Shape, rows: number): Generator<string> {
    for (let from = 0; from < rows; from += 20_000) {
      const lines = makeResults(shape, from, Math.min(20_000, rows - from)).map((r) =>
        [
          r.id,
          r.accountId,
          r.checkId,
          r.startedAt,
          r.runLocation,
          r.hasFailures ? 1 : 0,
          r.responseTime,
          r.attempts,
          r.statusCode ?? '',
          r.timings?.wait ?? '',
          r.timings?.dns ?? '',
          r.timings?.tcp ?? '',
          r.timings?.firstByte ?? '',
          r.timings?.download ?? '',
        ].join(','),
      );
      yield `${lines.join('\n')}\n`;
    }
  }
  for (const { shape, rows } of sets) await copyIn(PG_DATABASE, 'bench_check_results', csv(shape, rows));
  await psql(
    PG_DATABASE,
    'CREATE INDEX bench_check_results_key ON bench_check_results (account_id, check_id, started_at)',
  );
  await psql(PG_DATABASE, 'VACUUM ANALYZE bench_check_results');
  return (performance.now() - started) / 1000;
}

const COLUMNS: Record<string, string> = {
  responseTime: 'response_time',
  dns: 'timing_dns',
  firstByte: 'timing_first_byte',
  tcp: 'timing_tcp',
  download: 'timing_download',
  wait: 'timing_wait',
};
const LEVELS: Record<string, number> = { median: 0.5, p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

function stat(metric: string): string {
  if (metric === 'availability') return `round(100.0 * (count(*) - sum(has_failures)) / count(*), 2) AS availability`;
  if (metric === 'retries') return 'sum(attempts - 1) AS retries';
  const [base, aggregation] = metric.split('_') as [string, string];
  const column = COLUMNS[base];
  if (!column) throw new Error(`no PostgreSQL column for ${metric}`);
  const level = LEVELS[aggregation];
  if (level !== undefined) return `percentile_cont(${level}) WITHIN GROUP (ORDER BY ${column}) AS "${metric}"`;
  return `${aggregation === 'stddev' ? 'stddev_pop' : aggregation}(${column}) AS "${metric}"`;
}

export interface PgQuery {
  accountId: string;
  checkId: string;
  fromMs: number;
  toMs: number;
  metrics: string[];
  intervalMinutes: number | null;
  groupByLocation: boolean;
}

export function postgresSql(q: PgQuery): string {
  const keys: string[] = [];
  if (q.groupByLocation) keys.push('run_location');
  if (q.intervalMinutes !== null)
    keys.push(`floor(extract(epoch FROM started_at) / ${q.intervalMinutes * 60}) AS bucket`);
  const select = [...keys, 'count(*) AS n', ...q.metrics.map(stat)].join(', ');
  const where = `account_id = '${q.accountId}' AND check_id = '${q.checkId}' AND started_at >= '${new Date(q.fromMs).toISOString()}' AND started_at < '${new Date(q.toMs).toISOString()}'`;
  const group =
    keys.length > 0
      ? ` GROUP BY ${keys.map((_, i) => i + 1).join(', ')} ORDER BY ${keys.map((_, i) => i + 1).join(', ')}`
      : '';
  return `SELECT ${select} FROM bench_check_results WHERE ${where}${group}`;
}
