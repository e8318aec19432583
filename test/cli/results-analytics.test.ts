import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, storedResults, tempDir, vigil } from './run.ts';

/** `vigil results send`, `vigil analytics` and `vigil metrics`: the real binary against a Vigil started in this process. */
let server: TestVigil;
// Each test runs the real binary a dozen times; on a loaded machine that outlasts the default 60 s.
vi.setConfig({ testTimeout: 240_000 });

beforeAll(async () => {
  server = await startVigil();
});
afterAll(async () => {
  await server?.stop();
});

/** An owner who may also send results (the ingest key, as a pipeline job would have it). */
const ownerEnv = () => baseOwnerEnv(server, { VIGIL_INGEST_KEY: server.ingestKey });
const stored = (accountId: string) => storedResults(server, accountId);

async function createCheck(owner: TestVigil['admin'], checkType: string): Promise<string> {
  const response = await owner.post<{ id: string }>('/v1/checks', { name: `${checkType} check`, checkType });
  if (response.status !== 201)
    throw new Error(`check creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id;
}

interface ResultLine {
  at: Date;
  location?: string;
  ms: number;
  failed?: boolean;
}

function apiResult(
  accountId: string,
  checkId: string,
  { at, location = 'eu-west-1', ms, failed = false }: ResultLine,
): string {
  return JSON.stringify({
    id: randomUUID(),
    accountId,
    checkId,
    checkType: 'API',
    startedAt: at.toISOString(),
    runLocation: location,
    hasFailures: failed,
    responseTime: ms,
    statusCode: failed ? 500 : 200,
  });
}

const minutes = (n: number) => n * 60_000;

describe.concurrent('results send', () => {
  it('a file with a line that is not JSON and an invalid result: the rest is stored, exit 1 with both line numbers', async ({
    expect,
  }) => {
    const { account, env } = await ownerEnv();
    const checkId = await createCheck(account.owner, 'API');
    const now = Date.now();
    const valid = (i: number) =>
      apiResult(account.accountId, checkId, { at: new Date(now - minutes(i + 1)), ms: 100 + i });
    const lines = [
      valid(0),
      valid(1),
      '{"id": not json',
      valid(2),
      '',
      valid(3),
      JSON.stringify({ ...JSON.parse(valid(4)), responseTime: -5 }),
      valid(5),
    ];
    const file = join(tempDir('vigil-results-'), 'results.ndjson');
    writeFileSync(file, lines.join('\n') + '\n');

    const run = await vigil(['results', 'send', file, '--batch-size', '2'], { env });
    expect(run.code).toBe(1);
    // Seven non-blank lines; six are JSON, so three requests of two.
    expect(run.stdout).toBe('Read 7 results: 5 accepted, 2 rejected (3 requests)\n');
    expect(run.stderr).toMatch(/^Warning: line 3: not JSON: /m);
    expect(run.stderr).toMatch(/^Warning: line 7: responseTime: /m);
    expect(run.stderr).toContain('Error: 2 of 7 results were rejected');
    expect(await stored(account.accountId)).toBe(5);

    // --json lists the same, and sending the file again stores nothing twice (results carry their ids).
    const json = await vigil(['results', 'send', file, '--json'], { env });
    expect(json.code).toBe(1);
    const summary = JSON.parse(json.stdout);
    expect(summary).toMatchObject({ read: 7, sent: 6, accepted: 5, batches: 1 });
    expect(summary.rejected.map((rejection: { line: number }) => rejection.line)).toEqual([3, 7]);
    expect(summary.rejected[1].message).toMatch(/^responseTime: /);
    expect(await stored(account.accountId)).toBe(5);
  });

  it('- reads standard input; --json prints the summary; --batch-size splits the requests', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const checkId = await createCheck(account.owner, 'API');
    const now = Date.now();
    const input = (count: number, offset: number) =>
      Array.from({ length: count }, (_, i) =>
        apiResult(account.accountId, checkId, { at: new Date(now - minutes(offset + i + 1)), ms: 50 }),
      ).join('\n') + '\n';
    const [one, split, whole] = await Promise.all([
      vigil(['results', 'send', '-'], { env, input: input(1, 0) }),
      vigil(['results', 'send', '-', '--json', '--batch-size', '3'], { env, input: input(7, 10) }),
      vigil(['results', 'send', '-', '--json'], { env, input: input(4, 20) }),
    ]);
    expect(one).toMatchObject({ code: 0, stdout: 'Read 1 result: 1 accepted, 0 rejected (1 request)\n', stderr: '' });
    expect(split.code).toBe(0);
    expect(JSON.parse(split.stdout)).toEqual({ read: 7, sent: 7, accepted: 7, rejected: [], batches: 3 });
    expect(JSON.parse(whole.stdout)).toEqual({ read: 4, sent: 4, accepted: 4, rejected: [], batches: 1 });
    expect(await stored(account.accountId)).toBe(12);
  });

  it('without any key, or with a bad --batch-size: usage errors', async ({ expect }) => {
    const { env } = await baseOwnerEnv(server);
    const { VIGIL_API_KEY: _ownerKey, ...noKeyEnv } = env;
    const [noKey, badSize] = await Promise.all([
      vigil(['results', 'send', '-'], { env: noKeyEnv, input: '{}\n' }),
      vigil(['results', 'send', '-', '--batch-size', '0'], {
        env: { ...env, VIGIL_INGEST_KEY: server.ingestKey },
        input: '{}\n',
      }),
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('VIGIL_INGEST_KEY');
    expect(badSize.code).toBe(2);
    expect(badSize.stderr).toContain('expected an integer from 1 to 10000');
  });
});

describe.concurrent('analytics', () => {
  it('after sending results: a table, --json, --csv, --interval and --group-by; a bad metric is the API 400', async ({
    expect,
  }) => {
    const { account, env } = await ownerEnv();
    const checkId = await createCheck(account.owner, 'API');
    // A fixed window of two whole hours, so the buckets and their values are known exactly.
    const from = new Date(Math.floor(Date.now() / minutes(60)) * minutes(60) - minutes(180));
    const to = new Date(from.getTime() + minutes(120));
    const at = (offset: number) => new Date(from.getTime() + minutes(offset));
    const input = [
      apiResult(account.accountId, checkId, { at: at(5), location: 'eu-west-1', ms: 100 }),
      apiResult(account.accountId, checkId, { at: at(10), location: 'us-east-1', ms: 200, failed: true }),
      apiResult(account.accountId, checkId, { at: at(65), location: 'eu-west-1', ms: 300 }),
      apiResult(account.accountId, checkId, { at: at(70), location: 'eu-west-1', ms: 500 }),
      // Outside the window: never counted.
      apiResult(account.accountId, checkId, { at: at(125), location: 'eu-west-1', ms: 9000 }),
    ].join('\n');
    const sent = await vigil(['results', 'send', '-'], { env, input });
    expect(sent.code).toBe(0);
    expect(await stored(account.accountId)).toBe(5);

    const window = ['--from', from.toISOString(), '--to', to.toISOString()];
    const metrics = ['--metrics', 'responseTime_avg,availability,responseTime_max'];
    const [table, json, csv, interval, grouped, badMetric, wrongType] = await Promise.all([
      vigil(['analytics', 'api', checkId, ...metrics, ...window], { env }),
      vigil(['analytics', 'api', checkId, ...metrics, ...window, '--json'], { env }),
      vigil(['analytics', 'API-checks', checkId, ...metrics, ...window, '--csv'], { env }),
      vigil(
        [
          'analytics',
          'api',
          checkId,
          '--metrics',
          'responseTime_avg,availability',
          ...window,
          '--interval',
          '60',
          '--csv',
        ],
        { env },
      ),
      vigil(
        [
          'analytics',
          'api',
          checkId,
          '--metrics',
          'responseTime_avg,availability',
          ...window,
          '--group-by',
          'runLocation',
        ],
        { env },
      ),
      vigil(['analytics', 'api', checkId, '--metrics', 'bogus_avg', ...window], { env }),
      vigil(['analytics', 'browser', checkId, '--metrics', 'responseTime_avg'], { env }),
    ]);

    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`API check (API)  ${from.toISOString()} → ${to.toISOString()}`);
    expect(lines[1]).toMatch(/^responseTime_avg \(ms\)\s+availability \(%\)\s+responseTime_max \(ms\)$/);
    expect(lines[2]).toMatch(/^275\s+75\s+500$/);
    expect(lines).toHaveLength(3);

    const answer = JSON.parse(json.stdout);
    expect(answer).toMatchObject({ checkId, checkType: 'API', from: from.toISOString(), to: to.toISOString() });
    expect(answer.series).toEqual([{ data: [{ responseTime_avg: 275, availability: 75, responseTime_max: 500 }] }]);
    expect(answer.metadata.responseTime_avg).toMatchObject({ unit: 'milliseconds' });

    expect(csv.stdout).toBe('responseTime_avg,availability,responseTime_max\n275,75,500\n');

    expect(interval.code).toBe(0);
    expect(interval.stdout).toBe(
      `timestamp,responseTime_avg,availability\n${from.toISOString()},150,50\n${at(60).toISOString()},400,100\n`,
    );

    expect(grouped.code).toBe(0);
    const groupedLines = grouped.stdout.trimEnd().split('\n');
    expect(groupedLines[1]).toMatch(/^runLocation\s+responseTime_avg \(ms\)\s+availability \(%\)$/);
    expect(groupedLines.slice(2).sort()).toEqual([
      expect.stringMatching(/^eu-west-1\s+300\s+100$/),
      expect.stringMatching(/^us-east-1\s+200\s+0$/),
    ]);

    expect(badMetric.code).toBe(1);
    expect(badMetric.stderr).toContain('Error: metrics: "bogus_avg" is not a metric of API checks');
    expect(badMetric.stdout).toBe('');
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toContain(`Check ${checkId} has type API, not BROWSER`);
  });

  it('hides empty buckets unless --fill; rounds to the catalogue precision (responseTime: 2 decimals)', async ({
    expect,
  }) => {
    const { account, env } = await ownerEnv();
    const checkId = await createCheck(account.owner, 'API');
    const from = new Date(Math.floor(Date.now() / minutes(60)) * minutes(60) - minutes(180));
    const to = new Date(from.getTime() + minutes(120));
    const at = (offset: number) => new Date(from.getTime() + minutes(offset));
    // Runs in the first and third half hour only; 100, 101, 101 average 100.666…
    const input = [
      apiResult(account.accountId, checkId, { at: at(5), ms: 100 }),
      apiResult(account.accountId, checkId, { at: at(6), ms: 101 }),
      apiResult(account.accountId, checkId, { at: at(7), ms: 101 }),
      apiResult(account.accountId, checkId, { at: at(65), ms: 200.123456 }),
    ].join('\n');
    expect((await vigil(['results', 'send', '-'], { env, input })).code).toBe(0);
    const args = ['analytics', 'api', checkId, '--metrics', 'responseTime_avg,responseTime_max', '--interval', '30'];
    const window = ['--from', from.toISOString(), '--to', to.toISOString()];
    const [csv, filled, table, json] = await Promise.all([
      vigil([...args, ...window, '--csv'], { env }),
      vigil([...args, ...window, '--csv', '--fill'], { env }),
      vigil([...args, ...window], { env }),
      vigil([...args, ...window, '--json'], { env }),
    ]);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe(
      'timestamp,responseTime_avg,responseTime_max\n' +
        `${from.toISOString()},100.67,101\n${at(60).toISOString()},200.12,200.12\n`,
    );
    expect(csv.stderr).toBe('(2 empty buckets hidden; --fill shows them)\n');
    expect(filled.stdout.trimEnd().split('\n')).toEqual([
      'timestamp,responseTime_avg,responseTime_max',
      `${from.toISOString()},100.67,101`,
      `${at(30).toISOString()},,`,
      `${at(60).toISOString()},200.12,200.12`,
      `${at(90).toISOString()},,`,
    ]);
    expect(filled.stderr).toBe('');
    expect(table.stdout).toMatch(/\s100\.67\s+101\n/);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(4);
    // --json is the API's answer, untouched: every bucket, every digit.
    const points = JSON.parse(json.stdout).series[0].data;
    expect(points).toHaveLength(4);
    expect(points[0].responseTime_avg).toBeCloseTo(100.6667, 3);
  });

  it('usage errors: an unknown check type, --csv with --json, a bad --interval, no --metrics', async ({ expect }) => {
    const { env } = await ownerEnv();
    const id = randomUUID();
    const runs = await Promise.all([
      vigil(['analytics', 'smtp', id, '--metrics', 'responseTime_avg'], { env }),
      vigil(['analytics', 'api', id, '--metrics', 'responseTime_avg', '--csv', '--json'], { env }),
      vigil(['analytics', 'api', id, '--metrics', 'responseTime_avg', '--interval', '0'], { env }),
      vigil(['analytics', 'api', id], { env }),
    ]);
    expect(runs.map((run) => run.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0]!.stderr).toContain('unknown check type');
    expect(runs[1]!.stderr).toContain('Choose one of --csv and --json');
    expect(runs[2]!.stderr).toContain('expected an integer from 1 to 43200');
    expect(runs[3]!.stderr).toContain("required option '--metrics <list>' not specified");
  });
});

describe.concurrent('metrics', () => {
  it('api: the catalogue with the analytics names, without thresholds unless asked; browser --thresholds: the Core Web Vitals thresholds', async ({
    expect,
  }) => {
    const { env } = await ownerEnv();
    const [api, apiJson, browser, browserJson, bad] = await Promise.all([
      vigil(['metrics', 'api'], { env }),
      vigil(['metrics', 'api', '--json'], { env }),
      vigil(['metrics', 'browser', '--thresholds', '--category', 'core_web_vitals'], { env }),
      vigil(['metrics', 'browser-checks', '--thresholds', '--json'], { env }),
      vigil(['metrics', 'api', '--category', 'speed'], { env }),
    ]);
    expect(api.stderr).toBe('');
    expect(api.code).toBe(0);
    const lines = api.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^GROUP\s+NAME\s+UNIT\s+ANALYTICS\s+DESCRIPTION$/);
    expect(api.stdout).toMatch(
      /^responseTime\s+averageResponseTime\s+milliseconds\s+responseTime_avg\s+Arithmetic mean/m,
    );
    expect(api.stdout).toMatch(/^success\s+successRate\s+percentage\s+availability\s+/m);
    expect(api.stdout).not.toContain('largestContentfulPaint');
    const catalogue = JSON.parse(apiJson.stdout);
    expect(catalogue.meta.totalMetrics).toBe(lines.length - 1);
    expect(catalogue.data.responseTimeMetrics.map((metric: { name: string }) => metric.name)).toContain(
      'p95ResponseTime',
    );
    // No --thresholds: none in the JSON either.
    expect(apiJson.stdout).not.toContain('guidelines');

    expect(browser.code).toBe(0);
    const browserLines = browser.stdout.trimEnd().split('\n');
    expect(browserLines[0]).toMatch(/^GROUP\s+NAME\s+UNIT\s+ANALYTICS\s+GOOD\s+NEEDS IMPROVEMENT\s+DESCRIPTION$/);
    expect(browserLines).toHaveLength(5);
    expect(browser.stdout).toMatch(/^browserSpecific\s+largestContentfulPaint\s+seconds\s+LCP_avg\s+2\.5\s+4\s+/m);
    expect(browser.stdout).toMatch(/^browserSpecific\s+cumulativeLayoutShift\s+score\s+CLS_avg\s+0\.1\s+0\.25\s+/m);
    const vitals = JSON.parse(browserJson.stdout).data.browserSpecificMetrics;
    expect(vitals.find((metric: { name: string }) => metric.name === 'firstContentfulPaint')).toMatchObject({
      goodThreshold: 1.8,
      needsImprovementThreshold: 3,
      analyticsMetric: 'FCP_avg',
    });

    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("argument 'speed' is invalid");
  });
});
