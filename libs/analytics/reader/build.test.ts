import { describe, expect, it } from 'vitest';
import { EXACT_LIMIT, aggregateSql, finishAggregateRows, rawSql, whereSql } from './build.ts';
import { baseMetrics } from './metrics.ts';
import { parseAnalyticsParams, type AnalyticsQuery, type RawParams } from './params.ts';

const ids = { accountId: '6f1c1b2e-0000-4000-8000-000000000001', checkId: '6f1c1b2e-0000-4000-8000-000000000002' };
function query(params: RawParams, checkType: AnalyticsQuery['checkType'] = 'BROWSER'): AnalyticsQuery {
  return { ...parseAnalyticsParams(params, { checkType, now: new Date('2024-01-02T00:00:00Z') }), ...ids, checkType };
}
const browser = baseMetrics.BROWSER;
const lcp = browser.find((base) => base.name === 'LCP')!;
const responseTime = browser[0]!;

describe('analytics SQL', () => {
  it('bounds the window on started_at (pruning) and started_ms (exact), half-open', () => {
    const where = whereSql(
      query({ metrics: 'availability', from: '2024-01-01T00:00:00.5Z', to: '1704070800' }),
      'clickhouse',
    );
    expect(where).toContain("started_at >= '2024-01-01 00:00:00'");
    expect(where).toContain('started_ms >= 1704067200500 AND started_ms < 1704070800000');
    expect(where).toContain(`account_id = '${ids.accountId}' AND check_id = '${ids.checkId}'`);
    // DuckDB prunes on started_ms's zone maps: the same window, exact, without started_at.
    const duck = whereSql(
      query({ metrics: 'availability', from: '2024-01-01T00:00:00.5Z', to: '1704070800' }),
      'duckdb',
    );
    expect(duck).not.toContain('started_at');
    expect(duck).toContain('started_ms >= 1704067200500 AND started_ms < 1704070800000');
  });

  it('filters statuses through whitelisted literals', () => {
    expect(whereSql(query({ metrics: 'availability', filterByStatus: 'failure' }), 'duckdb')).toContain(
      'has_failures = 1',
    );
    expect(whereSql(query({ metrics: 'availability', filterByStatus: 'success,failure' }), 'duckdb')).not.toContain(
      'has_failures',
    );
    expect(
      whereSql(query({ metrics: 'availability', filterByStatus: 'LATE,GRACE' }, 'HEARTBEAT'), 'clickhouse'),
    ).toContain("heartbeat_status IN ('LATE', 'GRACE')");
  });

  it('stays inside what ClickHouse 18.16 runs: no {name:Type} parameters, no toStartOfInterval', () => {
    const q = query({ metrics: 'LCP_p95,responseTime_avg', aggregationInterval: '15', groupBy: 'pageIndex' });
    const sql = aggregateSql(q, 'clickhouse', 'check_results FINAL', {
      level: 'page',
      values: [
        { base: lcp, stats: new Set(['p95']) },
        { base: responseTime, stats: new Set(['avg']) },
      ],
    });
    expect(sql).not.toMatch(/\{\w+:\w+\}|toStartOfInterval|quantileTDigest|quantile\(/);
    expect(sql).toContain('intDiv(started_ms, 900000) * 900000 AS b');
    // Many cells: exact interpolation in SQL over the sorted samples up to EXACT_LIMIT (the array
    // named inline, never sent), the nearest rank above it, in one SELECT straight over the rows.
    expect(sql).toContain('count((toFloat64(pj_lcp) AS v0)) AS c0');
    expect(sql).toContain(`if(length((arraySort(groupArray(${EXACT_LIMIT})(v0)) AS s0)) = 0, NULL,`);
    expect(sql).not.toContain(') AS s0,');
    expect(sql).toContain('quantilesExact(0.95)(v0) AS q0');
    expect(sql).toContain(`if(c0 <= ${EXACT_LIMIT},`);
    expect(sql).toMatch(/^SELECT [^()]*\(.* FROM check_results FINAL ARRAY JOIN [^()]* GROUP BY g, b$/);
    expect(sql).not.toContain('FROM (');
    // One cell: the sorted samples are sent, for finishAggregateRows to interpolate.
    const one = aggregateSql(query({ metrics: 'LCP_p95' }), 'clickhouse', 'check_results FINAL', {
      level: 'page',
      values: [{ base: lcp, stats: new Set(['p95']) }],
    });
    expect(one).toContain(
      `if(c0 <= ${EXACT_LIMIT}, arraySort(groupArray(${EXACT_LIMIT})(v0)), emptyArrayFloat64()) AS s0`,
    );
    expect(one).not.toContain('arrayElement(s0');
    // ARRAY JOIN aliases (pj_*) are never reused as SELECT aliases: 18.16 rejects that.
    const joined = [...sql.matchAll(/ AS (pj_\w+)/g)].map((match) => match[1]);
    const selected = [...sql.matchAll(/ AS (\w+)/g)]
      .map((match) => match[1])
      .filter((alias) => !alias!.startsWith('pj_'));
    expect(joined.length).toBeGreaterThan(0);
    for (const alias of joined) expect(selected).not.toContain(alias);
    expect(sql).toContain(
      'FROM check_results FINAL ARRAY JOIN page_index AS pj_index, page_url AS pj_url, page_lcp AS pj_lcp PREWHERE',
    );
  });

  it('interpolates ClickHouse percentiles from the sorted samples, nearest ranks above EXACT_LIMIT', () => {
    const plan = {
      level: 'run' as const,
      values: [{ base: responseTime, stats: new Set(['p50', 'p95', 'avg'] as const) }],
    };
    const rows = finishAggregateRows(
      [
        // numpy.percentile([10, 20, 40, 80], [50, 95]) = [30, 74]
        { g: 0, b: 0, n: 4, c0: 4, s0: [10, 20, 40, 80], q0: [40, 80], v0_avg: 37.5 },
        { g: 0, b: 1, n: 1, c0: 1, s0: [7], q0: [7, 7], v0_avg: 7 },
        { g: 0, b: 2, n: 2, c0: 0, s0: [], q0: [0, 0], v0_avg: null },
        { g: 0, b: 3, n: EXACT_LIMIT + 1, c0: EXACT_LIMIT + 1, s0: [], q0: [5, 9], v0_avg: 6 },
      ],
      plan,
      'clickhouse',
    );
    const rounded = (x: unknown) => (x === null ? null : Math.round(Number(x) * 1e9) / 1e9);
    expect(rows.map((row) => [row.v0_p50, row.v0_p95, row.v0_avg].map(rounded))).toEqual([
      [30, 74, 37.5],
      [7, 7, 7],
      [null, null, null],
      [5, 9, 6],
    ]);
    expect(rows[0]).not.toHaveProperty('s0');
    // Rows interpolated in SQL (many cells) keep their values.
    const sqlRows = [{ g: 'a', b: 0, n: 3, c0: 3, q0: [2, 3], v0_p50: 2.5, v0_p95: 2.95, v0_avg: 2 }];
    expect(finishAggregateRows(sqlRows, plan, 'clickhouse')[0]).toMatchObject({ v0_p50: 2.5, v0_p95: 2.95 });
    // DuckDB's rows already hold their percentiles.
    const duck = [{ g: 0, b: 0, v0_p50: 1 }];
    expect(finishAggregateRows(duck, plan, 'duckdb')).toBe(duck);
  });

  it('uses quantile_cont and stddev_pop on DuckDB, UNNEST for pages', () => {
    const q = query({ metrics: 'LCP_p95,LCP_stddev' });
    const sql = aggregateSql(q, 'duckdb', 'check_results', {
      level: 'page',
      values: [{ base: lcp, stats: new Set(['p95', 'stddev']) }],
    });
    // One level: the scalar form; several: one list, indexed per stat (one sort per value).
    expect(sql).toContain('quantile_cont(CAST(pj_lcp AS DOUBLE), 0.95) AS v0_p95');
    const levels = aggregateSql(query({ metrics: 'LCP_p50,LCP_p95' }), 'duckdb', 'check_results', {
      level: 'page',
      values: [{ base: lcp, stats: new Set(['p50', 'p95']) }],
    });
    expect(levels).toContain('quantile_cont(CAST(pj_lcp AS DOUBLE), [0.5, 0.95])[1] AS v0_p50');
    expect(levels).toContain('quantile_cont(CAST(pj_lcp AS DOUBLE), [0.5, 0.95])[2] AS v0_p95');
    expect(sql).toContain('stddev_pop(CAST(pj_lcp AS DOUBLE)) AS v0_stddev');
    expect(sql).toContain('unnest(page_lcp) AS pj_lcp');
    // One cell: an ungrouped aggregate, kept at no rows for an empty window.
    expect(sql).toMatch(/\) AS pages HAVING count\(\*\) > 0$/);
    const grouped = aggregateSql(query({ metrics: 'LCP_p95', groupBy: 'runLocation' }), 'duckdb', 'check_results', {
      level: 'page',
      values: [{ base: lcp, stats: new Set(['p95']) }],
    });
    expect(grouped).toMatch(/ GROUP BY g, b$/);
    expect(grouped).not.toContain('HAVING');
  });

  it('puts a PREWHERE on account and check under FINAL on ClickHouse only, after ARRAY JOIN', () => {
    const prewhere = `PREWHERE account_id = '${ids.accountId}' AND check_id = '${ids.checkId}' WHERE `;
    const runs = query({ metrics: 'responseTime_avg' });
    const plan = { level: 'run' as const, values: [{ base: responseTime, stats: new Set(['avg' as const]) }] };
    expect(aggregateSql(runs, 'clickhouse', 'check_results FINAL', plan)).toContain(
      `FROM check_results FINAL ${prewhere}`,
    );
    const pages = aggregateSql(query({ metrics: 'LCP_avg' }), 'clickhouse', 'check_results FINAL', {
      level: 'page',
      values: [{ base: lcp, stats: new Set(['avg' as const]) }],
    });
    expect(pages).toMatch(/ARRAY JOIN [^()]* PREWHERE account_id = .* WHERE /);
    expect(rawSql(runs, 'clickhouse', 'check_results FINAL', [responseTime])).toContain(prewhere);
    expect(aggregateSql(runs, 'clickhouse', 'check_results', plan)).not.toContain('PREWHERE');
    expect(aggregateSql(runs, 'duckdb', 'check_results', plan)).not.toContain('PREWHERE');
  });

  it('pages raw runs newest first with LIMIT and OFFSET', () => {
    const sql = rawSql(query({ metrics: 'responseTime', limit: '25', page: '3' }), 'duckdb', 'check_results', [
      responseTime,
    ]);
    expect(sql).toMatch(/ORDER BY ms DESC, rid DESC LIMIT 25 OFFSET 50$/);
    const pages = rawSql(query({ metrics: 'LCP', limit: '5' }), 'clickhouse', 'check_results FINAL', [lcp]);
    expect(pages).toMatch(/ORDER BY ms DESC, rid DESC, pidx ASC LIMIT 5 OFFSET 0$/);
  });
});
