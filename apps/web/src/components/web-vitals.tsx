import { call, raw } from '../api.ts';
import type { Check, CheckAnalytics } from '../api.gen.ts';
import { useAsync } from '../hooks.ts';

const VITALS = [
  ['FCP', 'First contentful paint', 'ms'],
  ['LCP', 'Largest contentful paint', 'ms'],
  ['CLS', 'Cumulative layout shift', ''],
  ['TBT', 'Total blocking time', 'ms'],
] as const;
const QUICK = { '24h': 'last24Hours', '7d': 'last7Days', '30d': 'last30Days', custom: 'last24Hours' } as const;

type Definition = { name: string; goodThreshold?: number; needsImprovementThreshold?: number };

/** FCP, LCP, CLS and TBT (p75) coloured good / needs improvement / poor by the catalogue's thresholds. */
export function WebVitals({ check, range }: { check: Check; range: keyof typeof QUICK }) {
  const data = useAsync(async () => {
    const [catalogue, values] = await Promise.all([
      call('GET /v1/analytics/metrics/{checkType}', {
        params: { checkType: 'BROWSER' },
        query: { includeThresholds: 'true' },
      }),
      raw(
        'GET',
        `/v1/analytics/browser-checks/${check.id}?quickRange=${QUICK[range]}&metrics=${VITALS.map(([m]) => `${m}_p75`).join(',')}`,
      ),
    ]);
    const definitions = new Map<string, Definition>(
      (catalogue.data.browserSpecificMetrics as Definition[]).map((d) => [d.name, d]),
    );
    const point = ((values.body as CheckAnalytics).series[0]?.data[0] ?? {}) as Record<string, unknown>;
    return { definitions, point };
  }, [check.id, range]);
  return (
    <section aria-labelledby="vitals-title">
      <h2 id="vitals-title">Web vitals (p75)</h2>
      {data.error && <p class="error-box">{data.error.message}</p>}
      <div class="grid four">
        {VITALS.map(([name, label, unit]) => {
          const value = data.data?.point[`${name}_p75`] as number | null | undefined;
          const def = data.data?.definitions.get(name) ?? data.data?.definitions.get(`${name}_p75`);
          const rating =
            value == null || !def?.goodThreshold
              ? ''
              : value <= def.goodThreshold
                ? 'good'
                : value <= (def.needsImprovementThreshold ?? Infinity)
                  ? 'needs-improvement'
                  : 'poor';
          return (
            <div class={`card vital ${rating}`} key={name} data-vital={name} data-rating={rating}>
              <div class="muted">{label}</div>
              <div class="value">
                {value == null ? '–' : `${name === 'CLS' ? value.toFixed(3) : Math.round(value)} ${unit}`}
              </div>
              <div class="muted">{rating ? rating.replace('-', ' ') : 'no data'}</div>
            </div>
          );
        })}
      </div>
    </section>
  );
}
