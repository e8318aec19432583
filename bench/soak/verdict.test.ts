import { describe, expect, it } from 'vitest';
import { promValue, type Sample } from './sampler.ts';
import { decide, growthOf, type Loss } from './verdict.ts';

const at = (app: string, t: number, rssMiB: number | null, loopP99Ms: number | null = 10): Sample => ({
  t,
  app,
  rssMiB,
  loopP99Ms,
  loopMaxMs: null,
  heapUsedMiB: null,
});

const clean: Loss = {
  acknowledged: 1000,
  missing: 0,
  rowsFinal: 1000,
  distinctIds: 1000,
  expectedWebhooks: 40,
  deliveredWebhooks: 40,
};
const flat = [
  at('api', 0, 100),
  at('api', 180, 200),
  at('api', 600, 209),
  at('ingestor', 0, 90),
  at('ingestor', 600, 95),
];

describe('the soak verdict', () => {
  it('measures growth from the first sample at or after the baseline to the last one', () => {
    const [api, ingestor] = growthOf(flat, 180);
    expect(api).toMatchObject({
      startMiB: 100,
      baselineMiB: 200,
      endMiB: 209,
      growthPct: 4.5,
      maxAfterBaselineMiB: 209,
    });
    // No sample exactly at 180 s: the next one is the baseline, and it is also the end.
    expect(ingestor).toMatchObject({ baselineMiB: 95, endMiB: 95, growthPct: null });
  });

  it('reports the RSS trend after the baseline in MiB per minute, through the saw-tooth of GC', () => {
    const saw = [0, 1, 2, 3, 4, 5].map((minute) =>
      at('alerter', 180 + minute * 60, 200 + minute * 2 + (minute % 2 ? 8 : -8)),
    );
    const [alerter] = growthOf(saw, 180);
    expect(alerter!.trendMiBPerMin).toBeGreaterThan(1);
    expect(alerter!.trendMiBPerMin).toBeLessThan(5);
    expect(growthOf([at('x', 180, 100), at('x', 600, 100)], 180)[0]!.trendMiBPerMin).toBeNull();
  });

  it('passes a flat, lossless run and fails each kind of loss or growth, naming it', () => {
    const samples = flat.filter((s) => s.app === 'api');
    expect(decide({ samples, baselineSecond: 180, maxGrowthPct: 10, loss: clean, incidents: [] })).toMatchObject({
      pass: true,
      reasons: [],
    });
    const grown = [...samples.slice(0, 2), at('api', 600, 221)];
    expect(
      decide({ samples: grown, baselineSecond: 180, maxGrowthPct: 10, loss: clean, incidents: [] }).reasons,
    ).toEqual(['api: RSS grew 10.5% (200 → 221 MiB) after second 180']);
    const cases: Array<[Partial<Loss>, RegExp]> = [
      [{ missing: 3, rowsFinal: 997, distinctIds: 997 }, /3 acknowledged results are not in ClickHouse/],
      [{ rowsFinal: 1001 }, /holds 1001 rows after de-duplication for 1000 distinct results/],
      [{ deliveredWebhooks: 39 }, /1 of 40 webhook ids never arrived/],
      [{ expectedWebhooks: 0, deliveredWebhooks: 0 }, /did not exercise alerting/],
    ];
    expect(
      decide({
        samples,
        baselineSecond: 180,
        maxGrowthPct: 10,
        loss: { ...clean, rowsFinal: 1200, distinctIds: 1200 },
        incidents: [],
      }).pass,
    ).toBe(true);
    for (const [change, reason] of cases) {
      const verdict = decide({
        samples,
        baselineSecond: 180,
        maxGrowthPct: 10,
        loss: { ...clean, ...change },
        incidents: [],
      });
      expect(verdict.pass).toBe(false);
      expect(verdict.reasons.join('\n')).toMatch(reason);
    }
    const incident = (at: number, op: string, status: number | 'error') => ({ at, op, status, message: '' });
    const errors = decide({
      samples,
      baselineSecond: 180,
      maxGrowthPct: 10,
      loss: clean,
      incidents: [
        incident(1_000, 'GET /v1/checks', 503),
        incident(2_000, 'GET /v1/checks', 500),
        incident(3_000, 'POST /v1/check-results', 'error'),
      ],
      exited: ['alerter (1)'],
    });
    expect(errors).toMatchObject({ pass: false, serverErrors: 2, networkErrors: 1, duringOutages: 0 });
    expect(errors.reasons).toEqual([
      'alerter (1) exited during the soak',
      '2 × 5xx on GET /v1/checks',
      '1 failed connections on POST /v1/check-results',
    ]);
  });

  it('puts 5xx during an outage of a backing service down to the outage, and only those', () => {
    const samples = flat.filter((s) => s.app === 'api');
    const outage = { service: 'redis', from: 100_000, to: 120_000 };
    const at503 = (at: number) => ({ at, op: 'GET /v1/checks', status: 503, message: 'Redis is unavailable' });
    const verdict = decide({
      samples,
      baselineSecond: 180,
      maxGrowthPct: 10,
      loss: clean,
      incidents: [at503(95_000), at503(110_000), at503(125_000), at503(200_000)],
      outages: [outage],
    });
    expect(verdict).toMatchObject({ pass: false, duringOutages: 3, serverErrors: 4 });
    expect(verdict.reasons).toEqual(['1 × 5xx on GET /v1/checks']);
    expect(verdict.notes.join('\n')).toMatch(/redis refused connections from .*\n3 5xx answers/);
  });

  it('fails a process with no samples after the baseline instead of passing it unseen', () => {
    const verdict = decide({
      samples: [at('runner', 0, 80), at('runner', 600, null)],
      baselineSecond: 180,
      maxGrowthPct: 10,
      loss: clean,
      incidents: [],
    });
    expect(verdict.reasons).toEqual(['runner: no RSS samples from second 180 to the end to compare']);
  });

  it("reads prom-client's unlabelled gauges from the text format", () => {
    const text = [
      '# HELP vigil_nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop delays.',
      '# TYPE vigil_nodejs_eventloop_lag_p99_seconds gauge',
      'vigil_nodejs_eventloop_lag_p99_seconds 0.012',
      'vigil_nodejs_eventloop_lag_p99_seconds_extra 9',
      'vigil_http_requests_total{method="GET"} 3',
    ].join('\n');
    expect(promValue(text, 'vigil_nodejs_eventloop_lag_p99_seconds')).toBe(0.012);
    expect(promValue(text, 'vigil_nodejs_eventloop_lag_min_seconds')).toBeNull();
    expect(promValue('', 'x')).toBeNull();
  });
});
