import { ValidationError } from '#core';
import { heartbeatStatuses, type ResultCheckType } from '#domain';
import { parseMetrics, type RequestedMetric } from './metrics.ts';
import { MAX_INTERVAL_MINUTES, MIN_INTERVAL_MINUTES, checkInterval, resolveWindow, type TimeWindow } from './window.ts';

export type GroupBy = 'runLocation' | 'statusCode' | 'pageIndex';
export type StatusFilter = 'success' | 'failure' | (typeof heartbeatStatuses)[number];

/** What may be grouped by, per check type. Heartbeats have nothing to group by. */
export const groupByOptions: Readonly<Record<ResultCheckType, readonly GroupBy[]>> = {
  API: ['runLocation', 'statusCode'],
  URL: ['runLocation', 'statusCode'],
  BROWSER: ['runLocation', 'pageIndex'],
  MULTI_STEP: ['runLocation'],
  PLAYWRIGHT: ['runLocation'],
  TCP: ['runLocation'],
  DNS: ['runLocation'],
  HEARTBEAT: [],
};

export function statusFilterOptions(checkType: ResultCheckType): readonly StatusFilter[] {
  return checkType === 'HEARTBEAT' ? heartbeatStatuses : ['success', 'failure'];
}

/** A validated analytics request, before it is tied to a check's ids. */
export interface AnalyticsRequest {
  window: TimeWindow;
  /**
   * How the window moves with the clock, for cache keys: the quick range, or `<from ms>..now`
   * when only from was given; null when from and to fix it.
   */
  relativeWindow: string | null;
  intervalMinutes: number | null;
  statuses: StatusFilter[];
  groupBy: GroupBy | null;
  metrics: RequestedMetric[];
  raw: boolean;
  limit: number;
  page: number;
}

export interface AnalyticsQuery extends AnalyticsRequest {
  accountId: string;
  checkId: string;
  checkType: ResultCheckType;
  /**
   * Time ranges [fromMs, toMs) whose runs are left out (maintenance windows, which availability
   * excludes). Never from user input as such: the application derives them from stored windows.
   */
  exclude?: readonly { fromMs: number; toMs: number }[];
}

/** Query-string values as fastify hands them over: a string, or an array for a repeated key. */
export type RawParams = Record<string, unknown>;

/**
 * Validates analytics query parameters. Every error is a ValidationError whose message starts
 * with the parameter's name. Array parameters take comma-separated values, repeated keys, and
 * the `name[]` spelling; scalar parameters must appear once.
 */
export function parseAnalyticsParams(
  params: RawParams,
  context: { checkType: ResultCheckType; now: Date },
): AnalyticsRequest {
  const { checkType } = context;
  const quickRange = scalar(params, 'quickRange');
  const from = scalar(params, 'from');
  const to = scalar(params, 'to');
  const window = resolveWindow({ from, to, quickRange }, context.now);

  const intervalText = scalar(params, 'aggregationInterval');
  const intervalMinutes =
    intervalText === undefined
      ? null
      : integer(intervalText, 'aggregationInterval', MIN_INTERVAL_MINUTES, MAX_INTERVAL_MINUTES);
  if (intervalMinutes !== null) checkInterval(window, intervalMinutes);

  const metrics = parseMetrics(list(params, 'metrics'), checkType);
  const raw = metrics.some((metric) => metric.kind === 'raw');

  const groupBy = parseGroupBy(scalar(params, 'groupBy'), checkType);
  if (raw && groupBy !== null)
    throw new ValidationError(
      'groupBy: raw metrics return individual runs, which are not grouped; each run carries its runLocation',
    );
  if (raw && intervalMinutes !== null)
    throw new ValidationError('aggregationInterval: raw metrics return individual runs, which are not bucketed');

  const statuses = parseStatuses(list(params, 'filterByStatus'), checkType);
  const limitText = scalar(params, 'limit');
  const pageText = scalar(params, 'page');
  return {
    window,
    relativeWindow:
      from === undefined ? (quickRange ?? 'last24Hours') : to === undefined ? `${window.from.getTime()}..now` : null,
    intervalMinutes,
    statuses,
    groupBy,
    metrics,
    raw,
    limit: limitText === undefined ? 10 : integer(limitText, 'limit', 1, 100),
    page: pageText === undefined ? 1 : integer(pageText, 'page', 1, 1_000_000),
  };
}

function parseGroupBy(value: string | undefined, checkType: ResultCheckType): GroupBy | null {
  if (value === undefined) return null;
  const allowed = groupByOptions[checkType];
  if (allowed.length === 0)
    throw new ValidationError(`groupBy: ${checkType} analytics cannot be grouped; leave groupBy out`);
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ValidationError(
      `groupBy: "${value}" is not available for ${checkType} checks; use one of ${allowed.join(', ')}`,
    );
  }
  return value as GroupBy;
}

function parseStatuses(values: string[], checkType: ResultCheckType): StatusFilter[] {
  const allowed = statusFilterOptions(checkType);
  const found = new Set<StatusFilter>();
  for (const value of values) {
    // Case does not carry meaning here; SUCCESS and success are the same filter.
    const match = allowed.find((option) => option.toLowerCase() === value.toLowerCase());
    if (!match)
      throw new ValidationError(
        `filterByStatus: "${value}" is not a status of ${checkType} checks; use ${allowed.join(', ')}`,
      );
    found.add(match);
  }
  return [...found];
}

function scalar(params: RawParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw new ValidationError(`${name}: given ${value.length} times; give it once`);
    return text(value[0], name);
  }
  return text(value, name);
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new ValidationError(`${name}: expected a single value`);
  const trimmed = String(value).trim();
  if (trimmed === '') throw new ValidationError(`${name}: empty; give a value or leave it out`);
  return trimmed;
}

/** `name=a,b`, `name=a&name=b` and `name[]=a&name[]=b`, in order, blanks dropped. */
function list(params: RawParams, name: string): string[] {
  const values: string[] = [];
  for (const key of [name, `${name}[]`]) {
    const value = params[key];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string') throw new ValidationError(`${name}: expected comma-separated values`);
      values.push(
        ...item
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== ''),
      );
    }
  }
  return values;
}

function integer(value: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(value))
    throw new ValidationError(`${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ValidationError(`${name}: must be from ${min} to ${max}, got ${value}`);
  return parsed;
}
