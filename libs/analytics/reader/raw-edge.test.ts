import { describe, expect, it } from 'vitest';
import { sketchKey } from '../rollup/sketch.ts';
import { addEdgeRows, clickHouseEdgeRowsSql, emptyMerged, type EdgeRow, type Merged } from './raw-edge.ts';
import { parseAnalyticsParams } from './params.ts';

// The int tests compare the whole seam with the exact path on every engine (rollup/daily.int.test.ts);
// these pin the sums and cells one edge row lands in.
const ids = { accountId: '00000000-0000-4000-8000-000000000001', checkId: '00000000-0000-4000-8000-000000000002' };
const HOUR = 3_600_000;
const base = Date.parse('2024-01-01T00:00:00Z');
const query = (params: Record<string, string>) => ({
  ...parseAnalyticsParams(
    {
      from: String(base / 1000),
      to: String((base + 48 * HOUR) / 1000),
      metrics: 'responseTime_p95,dns_avg',
      ...params,
    },
    { checkType: 'API', now: new Date(base + 48 * HOUR) },
  ),
  ...ids,
  checkType: 'API' as const,
});
const row = (ms: number, l: string, f: number, a: number, rt: number, dns: number | null): EdgeRow => ({
  l,
  ms,
  f,
  a,
  v0: 0,
  v1: rt,
  v2: dns,
});

function sums(rows: EdgeRow[], params: Record<string, string>): Map<string, Merged> {
  const cells = new Map<string, Merged>();
  addEdgeRows(rows, query(params), ['', 'responseTime', 'dns'], new Set(['responseTime']), (g, b, metric) => {
    const key = `${String(g)}|${b}|${metric}`;
    const merged = cells.get(key) ?? emptyMerged();
    cells.set(key, merged);
    return merged;
  });
  return cells;
}

describe('ClickHouse raw edges summed by the reader', () => {
  const rows = [
    row(base + 10, 'eu', 0, 1, 100, 5),
    row(base + HOUR - 1, 'us', 1, 3, 300, null),
    row(base + 2 * HOUR + 5, 'eu', 0, 2, 200, 7),
  ];

  it('sums runs, failures, retries and each metric where it has a sample, with sketch keys for sketched metrics', () => {
    const cells = sums(rows, {});
    expect(cells.get('0|0|')).toMatchObject({ n: 3, failures: 1, retries: 3, total: 0 });
    const rt = cells.get('0|0|responseTime')!;
    expect(rt).toMatchObject({ n: 3, total: 600, minimum: 100, maximum: 300, squares: 140_000 });
    expect([...rt.sketch].sort((a, b) => a[0] - b[0])).toEqual(
      [
        [sketchKey(100), 1],
        [sketchKey(200), 1],
        [sketchKey(300), 1],
      ].sort((a, b) => a[0]! - b[0]!),
    );
    // The NULL dns of the second run is no sample; dns is not sketched.
    expect(cells.get('0|0|dns')).toMatchObject({ n: 2, total: 12, minimum: 5, maximum: 7, retries: 1 });
    expect(cells.get('0|0|dns')!.sketch.size).toBe(0);
  });

  it("puts each row in its location's cell and its hour's bucket", () => {
    const cells = sums(rows, { groupBy: 'runLocation', aggregationInterval: '120' });
    expect(new Set([...cells.keys()].filter((key) => key.endsWith('|')))).toEqual(
      new Set([`eu|${base}|`, `us|${base}|`, `eu|${base + 2 * HOUR}|`]),
    );
  });

  it('selects the rows of the edges only, deduplicated by FINAL with the ids in PREWHERE', () => {
    const sql = clickHouseEdgeRowsSql(
      query({}),
      'check_results FINAL',
      ['', 'responseTime'],
      [
        [base + 500, base + HOUR],
        [base + 47 * HOUR, base + 48 * HOUR - 1],
      ],
    );
    expect(sql).toContain(`FROM check_results FINAL PREWHERE account_id = '${ids.accountId}'`);
    expect(sql).toContain(`started_ms >= ${base + 500} AND started_ms < ${base + HOUR})`);
    expect(sql).toContain(' OR ');
    expect(sql).toContain('toFloat64(response_time) AS v1');
  });
});
