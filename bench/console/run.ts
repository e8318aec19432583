/**
 * The web console, measured in Chromium, and the public status page under load.
 *
 *   chart     navigation → the check page's uPlot chart drawn with real points, for one check with
 *             30 days of 1-minute runs (43,200), 30-day range. "cold" samples ask for a window the
 *             API has not cached (a custom 30-day range shifted by a minute each time); "warm"
 *             ones repeat the quick range. Read from the page's `vigil:chart-drawn` mark.
 *   overview  navigation → the checks table rendered with 1,000 checks (statuses, 24 h availability
 *             and sparklines), from the page's `vigil:overview-rendered` mark.
 *   status    autocannon GET /status/{slug} (HTML) beside a bare fastify endpoint in the same run.
 *
 * Targets: chart and overview within 1 s of navigation; status page ≥ 2,000 req/s.
 *
 *   npm run bench -- console [--samples 5] [--checks 1000] [--days 30] [--duration 10] [--connections 50] [--cpu-prof]
 *
 * --cpu-prof writes the Vigil process's V8 profile under bench/results/profiles/ (summarise it
 * with `npm run bench -- profile <file>`).
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type autocannonModule from 'autocannon';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { freePort, repoRoot, spawnTs, waitForHttp } from '../support/processes.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { ratio, summarise, type Summary } from '../support/stats.ts';
import { createAccount, spawnVigil } from '../support/vigil.ts';
import { seedDenseCheck, seedManyChecks } from './seed.ts';
import { requireTool } from '../../scripts/npm-tools.ts';

// A bench-only client, installed on first use (scripts/npm-tools.ts), not by `npm install`.
const autocannon = requireTool<typeof autocannonModule>('autocannon');

const CHROMIUM = '/usr/bin/chromium';
const WEB = join(repoRoot, 'apps/web');

/** Builds the console when its bundle is missing or older than any source file. */
function ensureBuilt(): void {
  const built = join(WEB, 'dist/index.html');
  const newest = (dir: string): number =>
    Math.max(
      ...readdirSync(dir).map((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? newest(path) : statSync(path).mtimeMs;
      }),
    );
  if (existsSync(built) && statSync(built).mtimeMs > newest(join(WEB, 'src'))) return;
  log('building the console (npm run build:web)');
  execFileSync('npm', ['run', 'build:web'], { cwd: repoRoot, stdio: 'inherit' });
}

/** ms from navigation start to the page's mark, plus what the page fetched. */
async function measure(
  context: BrowserContext,
  url: string,
  mark: string,
): Promise<{ ms: number; apiBytes: number; detail: unknown }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    await page.goto(url);
    await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, mark, { timeout: 60_000 });
    const found = await page.evaluate((name) => {
      // Browser globals typed by hand: the bench compiles with Node's lib only.
      const entry = performance.getEntriesByName(name)[0] as unknown as { startTime: number; detail: unknown };
      const api = performance
        .getEntriesByType('resource')
        .filter((r) => new URL(r.name).pathname.startsWith('/v1/'))
        .reduce((sum, r) => sum + (r as unknown as { encodedBodySize: number }).encodedBodySize, 0);
      return { ms: entry.startTime, apiBytes: api, detail: entry.detail as unknown };
    }, mark);
    if (errors.length > 0) throw new Error(`page errors on ${url}: ${errors.join('; ')}`);
    return found;
  } finally {
    await page.close();
  }
}

async function samples(n: number, work: (i: number) => Promise<{ ms: number; apiBytes: number; detail: unknown }>) {
  const out: { ms: number; apiBytes: number; detail: unknown }[] = [];
  for (let i = 0; i < n; i += 1) out.push(await work(i));
  return { summary: summarise(out.map((s) => s.ms)), apiBytes: out[0]?.apiBytes ?? 0, detail: out[0]?.detail };
}

async function cannon(url: string, path: string, duration: number, connections: number, gzip = false) {
  const headers: Record<string, string> = gzip ? { 'accept-encoding': 'gzip' } : {};
  const result = await autocannon({ url, requests: [{ path, headers }], duration, connections });
  return {
    perSec: Math.round(result['2xx'] / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const localMinute = (ms: number) => {
  const d = new Date(ms);
  const pad = (v: number) => String(v).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      samples: { type: 'string', default: '5' },
      checks: { type: 'string', default: '1000' },
      days: { type: 'string', default: '30' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const n = Number(values.samples);
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  printMachine();
  ensureBuilt();

  const port = await freePort();
  const bare = spawnTs('bench/api/hello.ts', {}, [], ['fastify', String(port)]);
  let baseline: Awaited<ReturnType<typeof cannon>>;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/hello`, bare);
    log(`autocannon bare fastify: ${connections} connections, ${duration} s`);
    baseline = await cannon(`http://127.0.0.1:${port}`, '/hello', duration, connections);
  } finally {
    await bare.stop();
  }

  // No runner: the seeded results are the only ones, and nothing competes for the two cores.
  const profiles = join(repoRoot, 'bench/results/profiles');
  const vigil = await spawnVigil(
    { VIGIL_STANDALONE_APPS: 'api,projector,ingestor,alerter,dispatcher' },
    values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [],
  );
  let browser: Browser | undefined;
  try {
    const { accountId, key, owner } = await createAccount(vigil.url, vigil.adminKey);
    log(`seeding ${values.days} days of 1-minute runs for one check`);
    const dense = await seedDenseCheck(vigil.url, owner, key, accountId, Number(values.days));
    log(`seeding ${values.checks} checks with 24 hourly runs each`);
    const many = await seedManyChecks(vigil.url, owner, key, accountId, Number(values.checks) - 1);
    const slug = `bench-${Date.now().toString(36)}`;
    const page = await owner.request('POST', '/v1/status-pages', {
      slug,
      title: 'Bench status',
      description: 'Ten checks',
      checkIds: [dense.checkId, ...many.slice(0, 9)],
    });
    if (page.status !== 201) throw new Error(`status page creation failed: ${page.status}`);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const role = (await owner.request<{ role: string }>('GET', '/v1/whoami')).body.role;
    await context.addInitScript(
      (value) =>
        (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem(
          'vigil.session',
          value,
        ),
      JSON.stringify({ key, accountId, accountName: 'Bench', role }),
    );
    const checkUrl = `${vigil.url}/checks/${dense.checkId}`;
    log(`chart: ${n} cold and ${n} warm navigations`);
    const end = Date.now();
    const cold = await samples(n, (i) =>
      measure(
        context,
        `${checkUrl}?range=custom&from=${localMinute(end - 30 * 86_400_000 - (i + 1) * 60_000)}&to=${localMinute(end - (i + 1) * 60_000)}`,
        'vigil:chart-drawn',
      ),
    );
    await measure(context, `${checkUrl}?range=30d`, 'vigil:chart-drawn');
    const warm = await samples(n, () => measure(context, `${checkUrl}?range=30d`, 'vigil:chart-drawn'));
    // The check page with a month of real data, in both themes (the README's picture comes from here).
    for (const theme of ['light', 'dark'] as const) {
      const shot = await context.newPage();
      await shot.emulateMedia({ colorScheme: theme });
      await shot.goto(`${checkUrl}?range=30d&theme=${theme}`);
      await shot.waitForFunction(() => performance.getEntriesByName('vigil:chart-drawn').length > 0);
      await shot.locator('table[aria-label=Runs] tbody tr').first().waitFor();
      mkdirSync(join(repoRoot, 'bench/results/screenshots'), { recursive: true });
      await shot.screenshot({ path: join(repoRoot, `bench/results/screenshots/bench-check-30d-${theme}.png`) });
      await shot.close();
    }
    log(`overview: ${n} navigations`);
    const overview = await samples(n, () => measure(context, `${vigil.url}/`, 'vigil:overview-rendered'));
    // The same navigations' split: when the data had arrived (all API calls answered).
    const overviewData = await samples(n, () => measure(context, `${vigil.url}/`, 'vigil:overview-data'));
    await browser.close();
    browser = undefined;

    log(`autocannon /status/${slug}: ${connections} connections, ${duration} s`);
    await fetch(`${vigil.url}/status/${slug}`);
    const status = await cannon(vigil.url, `/status/${slug}`, duration, connections);
    log(`autocannon /status/${slug} with Accept-Encoding: gzip (as browsers ask)`);
    const statusGzip = await cannon(vigil.url, `/status/${slug}`, duration, connections, true);
    const htmlKiB = Math.round((await (await fetch(`${vigil.url}/status/${slug}`)).arrayBuffer()).byteLength / 1024);

    const row = (name: string, s: Summary, bytes: number, detail: unknown) => [
      name,
      s.n,
      s.p50,
      s.max,
      ratio(s.p50, 1000),
      Math.round(bytes / 1024),
      JSON.stringify(detail),
    ];
    printTable(
      `console in Chromium: navigation → drawn (target ≤ 1,000 ms), ${dense.runs} runs on the chart's check, ${values.checks} checks`,
      ['page', 'n', 'p50 ms', 'max ms', 'p50 / 1 s', 'API KiB', 'detail'],
      [
        row('check page, 30 d chart, cold (uncached window)', cold.summary, cold.apiBytes, cold.detail),
        row('check page, 30 d chart, warm', warm.summary, warm.apiBytes, warm.detail),
        row(`overview, ${values.checks} checks`, overview.summary, overview.apiBytes, overview.detail),
        row(
          'overview: its data answered (API calls only)',
          overviewData.summary,
          overviewData.apiBytes,
          overviewData.detail,
        ),
      ],
    );
    printTable(
      `status page: ${connections} connections × ${duration} s (target ≥ 2,000 req/s)`,
      ['target', 'per s (2xx)', 'vs fastify', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
      [
        ['baseline: bare fastify GET /hello', baseline.perSec, 1, baseline.p50, baseline.p99, 0, baseline.errors],
        ...[
          [`GET /status/{slug}, 10 checks (${htmlKiB} KiB HTML)`, status],
          ['GET /status/{slug}, gzip', statusGzip],
        ].map(([name, r]) => {
          const row = r as typeof status;
          return [name, row.perSec, ratio(row.perSec, baseline.perSec), row.p50, row.p99, row.non2xx, row.errors];
        }),
      ],
    );
    writeResults('console', {
      runs: dense.runs,
      checks: Number(values.checks),
      chart: { cold: cold.summary, warm: warm.summary, apiBytes: cold.apiBytes },
      overview: { ...overview.summary, apiBytes: overview.apiBytes, dataAnswered: overviewData.summary },
      status: { baseline, page: status, gzip: statusGzip, htmlKiB, duration, connections },
    });
  } finally {
    await browser?.close();
    await vigil.stop();
  }
}
