import { Option, type Command } from 'commander';
import { analyticsKind } from '../check-types.ts';
import { contextOf } from '../context.ts';
import { UsageError } from '../errors.ts';
import { collect, integer } from '../input.ts';
import { example } from '../kit.ts';
import { csvLine } from '../output.ts';
import type { ApiClient } from '../http.ts';
import { analyticsSchema, metricsCatalogueSchema, type Analytics } from '../schemas.ts';

const RANGES = ['last24Hours', 'last7Days', 'last30Days', 'thisWeek', 'thisMonth', 'lastWeek', 'lastMonth'];
// Per-run fields of raw queries and the bucket start of interval queries come before the metrics.
const LEADING = ['timestamp', 'startedAt', 'resultId', 'runLocation'];

interface AnalyticsOptions {
  metrics: string[];
  range?: string;
  from?: string;
  to?: string;
  interval?: number;
  groupBy?: string;
  status?: string[];
  limit?: number;
  page?: number;
  csv?: boolean;
  fill?: boolean;
}

export function registerAnalytics(program: Command): void {
  const analytics = program
    .command('analytics')
    .description('metrics of one check over time: a table, --csv or --json')
    .argument('<checkType>', 'api, browser, multistep, playwright, tcp, url, heartbeat or dns', analyticsKind)
    .argument('<checkId>', 'check id')
    .requiredOption(
      '--metrics <list>',
      'comma-separated, e.g. responseTime_avg,responseTime_p95,availability (see vigil metrics)',
      collect,
    )
    .addOption(
      new Option('--range <quickRange>', 'reporting window (default on the server: last24Hours)').choices(RANGES),
    )
    .option('--from <time>', 'window start, unix seconds or ISO 8601 (with --to, overrides --range)')
    .option('--to <time>', 'window end, unix seconds or ISO 8601')
    .option('--interval <minutes>', 'one row per time bucket of this many minutes (1-43200)', integer(1, 43_200))
    .option('--group-by <dimension>', 'runLocation, statusCode (API, URL) or pageIndex (browser)')
    .option('--status <list>', 'only runs with this status: success, failure (heartbeat: RECEIVED, LATE, …)', collect)
    .option('--limit <n>', 'series entries, or raw runs, per page (1-100)', integer(1, 100))
    .option('--page <n>', 'page, from 1', integer(1, 1_000_000))
    .option('--csv', 'print CSV: one line per row of the table')
    .option('--fill', 'also print the time buckets that hold no runs (hidden by default)')
    .action(async (kind: string, checkId: string, options: AnalyticsOptions, command: Command) => {
      const ctx = contextOf(command);
      if (options.csv && ctx.out.json) throw new UsageError('Choose one of --csv and --json');
      const client = ctx.client();
      const precisions = catalogPrecisions(client, kind);
      const result = await client.get(analyticsSchema, `/v1/analytics/${kind}/${encodeURIComponent(checkId)}`, {
        metrics: options.metrics.join(','),
        quickRange: options.range,
        from: options.from,
        to: options.to,
        aggregationInterval: options.interval,
        groupBy: options.groupBy,
        filterByStatus: options.status?.join(','),
        limit: options.limit,
        page: options.page,
      });
      const { columns, rows: all } = flatten(result);
      const metrics = Object.keys(result.metadata);
      const rows = options.fill ? all : all.filter((row) => metrics.some((metric) => row[metric] != null));
      const round = rounding(await precisions);
      const value = (row: Record<string, unknown>, column: string) => round(column, row[column]);
      const hidden = all.length - rows.length;
      if (hidden > 0 && !ctx.out.json)
        ctx.out.info(`(${hidden} empty bucket${hidden === 1 ? '' : 's'} hidden; --fill shows them)`);
      if (options.csv) {
        ctx.out.print(
          [csvLine(columns), ...rows.map((row) => csvLine(columns.map((column) => value(row, column))))].join('\n'),
        );
        return;
      }
      ctx.out.result(result, () => {
        ctx.out.print(`${result.name} (${result.checkType})  ${result.from} → ${result.to}`);
        ctx.out.table(
          rows,
          columns.map((column) => ({
            header: header(column, result),
            value: (row: Record<string, unknown>) => value(row, column),
          })),
        );
      });
    });
  example(
    analytics,
    'vigil analytics api 0b8c… --metrics responseTime_avg,responseTime_p95,availability --range last7Days',
    'vigil analytics browser 0b8c… --metrics LCP_p95 --interval 60 --group-by runLocation --csv > lcp.csv',
  );
}

/** One row per data point, with its series' group fields (runLocation, statusCode, …) repeated. */
export function flatten(result: Analytics): { columns: string[]; rows: Array<Record<string, unknown>> } {
  const rows: Array<Record<string, unknown>> = [];
  const groupKeys = new Set<string>();
  const pointKeys = new Set<string>();
  for (const entry of result.series) {
    const { data, ...group } = entry;
    Object.keys(group).forEach((key) => groupKeys.add(key));
    for (const point of data) {
      Object.keys(point).forEach((key) => pointKeys.add(key));
      rows.push({ ...group, ...point });
    }
  }
  const metrics = Object.keys(result.metadata);
  const leading = LEADING.filter((key) => pointKeys.has(key));
  const rest = [...pointKeys].filter((key) => !leading.includes(key) && !metrics.includes(key));
  const columns = [
    ...groupKeys,
    ...leading,
    ...metrics.filter((key) => pointKeys.has(key) || rows.length === 0),
    ...rest,
  ];
  return { columns, rows };
}

const UNITS: Record<string, string> = { milliseconds: 'ms', percentage: '%' };

function header(column: string, result: Analytics): string {
  const unit = UNITS[result.metadata[column]?.unit ?? ''];
  return unit ? `${column} (${unit})` : column;
}

// When the catalogue does not name a metric: three decimals, as before the catalogue was asked.
const DEFAULT_PRECISION = 3;

/**
 * Decimals per analytics metric, from the metrics catalogue (its `analyticsMetric` and
 * `precision`). The catalogue names one aggregate of a family (responseTime_avg); the others
 * (responseTime_p95, LCP_max) share its precision. A catalogue that cannot be read only costs
 * the rounding, never the command.
 */
async function catalogPrecisions(client: ApiClient, kind: string): Promise<Map<string, number>> {
  const short = kind.replace(/-(checks|monitors)$/, '');
  try {
    const catalogue = await client.get(metricsCatalogueSchema, `/v1/analytics/metrics/${short}`, {
      includeThresholds: false,
    });
    const precisions = new Map<string, number>();
    for (const metric of Object.values(catalogue.data).flat()) {
      const name = (metric as { analyticsMetric?: unknown }).analyticsMetric;
      const precision = (metric as { precision?: unknown }).precision;
      if (typeof name === 'string' && typeof precision === 'number') {
        precisions.set(name, precision);
        const family = `${name.split('_')[0]}_*`;
        if (!precisions.has(family)) precisions.set(family, precision);
      }
    }
    return precisions;
  } catch {
    return new Map();
  }
}

export function rounding(precisions: Map<string, number>) {
  return (column: string, value: unknown): unknown => {
    if (typeof value !== 'number' || Number.isInteger(value)) return value;
    const digits = precisions.get(column) ?? precisions.get(`${column.split('_')[0]}_*`) ?? DEFAULT_PRECISION;
    return Number(value.toFixed(digits));
  };
}
