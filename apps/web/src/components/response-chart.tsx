import { useMemo } from 'preact/hooks';
import { raw } from '../api.ts';
import type { Check, CheckAnalytics } from '../api.gen.ts';
import { analyticsKind, timeMetric } from '../data.ts';
import { useAsync } from '../hooks.ts';
import { localSpan, utcSpan } from '../local-time.ts';
import { allWindows, bandsFor } from '../maintenance.ts';
import { axisSpan } from './axis-span.ts';
import { Chart, type ChartSeries } from './chart.tsx';

export const RANGES = { '24h': ['last24Hours', 2], '7d': ['last7Days', 15], '30d': ['last30Days', 60] } as const;
export type RangeKey = keyof typeof RANGES | 'custom';
const SPAN_MS: Record<keyof typeof RANGES, number> = {
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
};

/** The analytics query of a range, and the time it covers (what the x axis shows). */
function windowQuery(
  range: RangeKey,
  from: string,
  to: string,
): { query: Record<string, string>; interval: number; fromMs: number; toMs: number } {
  if (range === 'custom' && from && to) {
    const minutes = (Date.parse(to) - Date.parse(from)) / 60_000;
    return {
      query: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
      interval: Math.max(1, Math.ceil(minutes / 720)),
      fromMs: new Date(from).getTime(),
      toMs: new Date(to).getTime(),
    };
  }
  const key = range === 'custom' ? '24h' : range;
  const [quick, interval] = RANGES[key];
  const now = Date.now();
  return { query: { quickRange: quick }, interval, fromMs: now - SPAN_MS[key], toMs: now };
}

/** Response time over the range, with the occurrences of the maintenance windows covering the check shaded. */
export function ResponseChart(props: { check: Check; range: RangeKey; from: string; to: string; groupBy: string }) {
  const metric = timeMetric(props.check.checkType);
  const answer = useAsync(async () => {
    if (!metric) return null;
    const { query, interval, fromMs, toMs } = windowQuery(props.range, props.from, props.to);
    const params = new URLSearchParams({
      ...query,
      aggregationInterval: String(interval),
      metrics: props.groupBy ? `${metric}_p95` : `${metric}_p50,${metric}_p95,${metric}_p99`,
      limit: '100',
    });
    if (props.groupBy) params.set('groupBy', props.groupBy);
    const path = `/v1/analytics/${analyticsKind[props.check.checkType]}/${props.check.id}?${params}`;
    return { data: (await raw('GET', path)).body as CheckAnalytics, fromMs, toMs, interval };
  }, [props.check.id, props.range, props.from, props.to, props.groupBy]);
  // The chart draws without them when windows cannot be read: they are context, not the data.
  const windows = useAsync(() => allWindows().catch(() => []), [props.check.id]);
  const chart = useMemo(() => {
    if (!answer.data || !metric) return null;
    const { data, fromMs, toMs } = answer.data;
    const first = data.series[0]?.data ?? [];
    const x = first.map((p) => Date.parse(String(p.timestamp)) / 1000);
    const series: ChartSeries[] = props.groupBy
      ? data.series.map((s) => ({
          label: `${String((s as Record<string, unknown>)[props.groupBy] ?? '?')} p95`,
          values: s.data.map((p) => p[`${metric}_p95`] as number | null),
        }))
      : (['p50', 'p95', 'p99'] as const).map((agg) => ({
          label: agg,
          values: first.map((p) => p[`${metric}_${agg}`] as number | null),
        }));
    const bands = bandsFor(windows.data ?? [], props.check, fromMs, toMs);
    const range = axisSpan({
      fromMs,
      toMs,
      intervalMinutes: answer.data.interval,
      x,
      series: series.map((s) => s.values),
      bandStartsMs: bands.map((b) => b.startMs),
    });
    return { x, series, bands, range };
  }, [answer.data, windows.data]);
  if (!metric) return null;
  return (
    <section class="card" aria-labelledby="chart-title">
      <h2 id="chart-title">
        Response time
        {props.groupBy
          ? ` (p95 by ${props.groupBy === 'runLocation' ? 'location' : 'status code'})`
          : ' (p50, p95, p99)'}
      </h2>
      {answer.error && <p class="error-box">{answer.error.message}</p>}
      {chart && (
        <Chart
          x={chart.x}
          series={chart.series}
          unit="ms"
          title={`Response time of ${props.check.name}`}
          range={chart.range}
          bands={chart.bands}
        />
      )}
      {chart && chart.bands.length > 0 && (
        <ul class="bands" aria-label="Maintenance in this range" data-testid="maintenance-bands">
          {chart.bands.map((b) => (
            <li key={`${b.name}-${b.startMs}`} title={utcSpan(b.startMs, b.endMs)}>
              <span class="swatch" aria-hidden="true" />
              Maintenance: {b.name}, {localSpan(b.startMs, b.endMs)} (
              {b.pauseRuns ? 'scheduled runs skipped' : 'alerts paused'})
            </li>
          ))}
        </ul>
      )}
      {answer.loading && !chart && <p class="muted">Loading chart…</p>}
    </section>
  );
}
