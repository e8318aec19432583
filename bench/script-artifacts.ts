/**
 * What keeping artifacts costs PLAYWRIGHT script runs: the same one-page test in the sandbox,
 * failing and passing, with artifacts NEVER (no tracing) and ON_FAILURE (the harness traces every
 * run; a failing one also takes a full-page screenshot, writes trace.zip and hands both out), in
 * alternating rounds so load on this shared machine hits all modes alike. The store's own write
 * cost is `npm run bench -- artifacts`'s; this one measures the sandboxed run.
 *
 *   npm run bench -- script-artifacts [--runtime 2026.04] [--runs 6] [--rounds 3] [--concurrency 2]
 *     [--chromium /usr/lib/chromium/chromium-headless-shell]
 *
 * --chromium: the browser the runtime's Playwright launches in the sandbox (default CHROMIUM_PATH).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createLogger } from '#core';
import { loadCatalogue, runtimesRoot } from '#runtimes';
import { createSandbox } from '#sandbox';
import { createScriptRunner } from '#scripts';
import { printMachine, printTable, writeResults } from './support/report.ts';
import { measureRounds, median, onOffRatios } from './support/rounds.ts';
import { round } from './support/stats.ts';
import { benchConfig } from './config.ts';

type Mode = { name: string; path: string; artifacts: 'NEVER' | 'ON_FAILURE' };
const MODES: Mode[] = [
  { name: 'failing, artifacts off', path: '/down', artifacts: 'NEVER' },
  { name: 'failing, artifacts on', path: '/down', artifacts: 'ON_FAILURE' },
  { name: 'passing, artifacts off', path: '/ok', artifacts: 'NEVER' },
  { name: 'passing, artifacts on', path: '/ok', artifacts: 'ON_FAILURE' },
];

const PAGE = (status: string) =>
  `<!doctype html><html><body style="font:16px sans-serif"><h1>${status}</h1>${'<p>Order summary, line item, price, quantity and a little more text per row.</p>'.repeat(60)}</body></html>`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runtime: { type: 'string' },
      runs: { type: 'string', default: '6' },
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '2' },
      chromium: { type: 'string', default: benchConfig.chromiumPath },
    },
  });
  const runs = Number(values.runs);
  const rounds = Number(values.rounds);
  const concurrency = Number(values.concurrency);
  const runtimeName = values.runtime ?? loadCatalogue()[0]!.name;
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(PAGE(req.url === '/ok' ? 'All good' : 'Service unavailable'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logger = createLogger({ level: 'warn', name: 'bench-script-artifacts' });
  const sandbox = createSandbox({ logger });
  const runner = createScriptRunner({ sandbox, runtimesRoot: runtimesRoot(), chromiumPath: values.chromium, logger });
  const ready = await runner.ready();
  if (!ready.ok) throw new Error(ready.reason);

  const oneRun = async (mode: Mode) => {
    const outcome = await runner.run({
      kind: 'PLAYWRIGHT',
      runtimeName,
      env: { TARGET: target },
      timeoutMs: 60_000,
      allowPrivate: true,
      artifacts: mode.artifacts,
      script: `const { test, expect } = require('@playwright/test');
test('page', async ({ page }) => {
  await page.goto(process.env.TARGET + '${mode.path}');
  await expect(page.locator('h1')).toHaveText('All good', { timeout: 500 });
});`,
    });
    if (outcome.passed !== (mode.path === '/ok')) throw new Error(`${mode.name}: ${outcome.error ?? 'passed'}`);
    return (outcome.artifacts ?? []).reduce((sum, artifact) => sum + artifact.body.length, 0);
  };
  printMachine();
  const figures = await measureRounds({ modes: MODES, runs, rounds, concurrency, oneRun });
  await runner.close();
  await sandbox.close();
  server.close();

  const failing = onOffRatios(figures, 'failing, artifacts on', 'failing, artifacts off');
  const passing = onOffRatios(figures, 'passing, artifacts on', 'passing, artifacts off');
  printTable(
    `script-artifacts: PLAYWRIGHT runs in the sandbox, ${runs} per mode per round, ${rounds} rounds, ${concurrency} at once, ${values.chromium} (medians of the rounds)`,
    [
      'mode',
      'runs/min',
      'each round',
      // No CPU column: the sandbox's processes leave this process's tree (a PID namespace).
      'KiB handed out per run',
      'ratio on/off: rates, per round',
    ],
    MODES.map((mode) => {
      const entry = figures.get(mode.name)!;
      const r = mode.path === '/down' ? failing : passing;
      return [
        mode.name,
        round(median(entry.perMinute)),
        entry.perMinute.map((x) => round(x)).join(' '),
        round(entry.bytesPerRun / 1024),
        mode.artifacts === 'NEVER' ? '' : [r.rate, r.perRound].map((x) => round(x, 2)).join(', '),
      ];
    }),
  );
  console.log(
    `target: failing PLAYWRIGHT runs with artifacts ${round(failing.rate, 2)} of the rate without (per round ${round(failing.perRound, 2)}); ≥ 0.8: ${failing.rate >= 0.8 ? 'met' : 'missed'}`,
  );
  writeResults('script-artifacts', {
    runtimeName,
    chromium: values.chromium,
    runs,
    rounds,
    concurrency,
    runsPerMinute: Object.fromEntries([...figures].map(([name, f]) => [name, f.perMinute.map((x) => round(x))])),
    bytesPerRun: Object.fromEntries([...figures].map(([name, f]) => [name, f.bytesPerRun])),
    failing: {
      rateRatio: round(failing.rate, 2),
      perRoundRatio: round(failing.perRound, 2),
    },
    passing: {
      rateRatio: round(passing.rate, 2),
      perRoundRatio: round(passing.perRound, 2),
    },
  });
}
