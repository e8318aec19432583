import { setMaxListeners } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSchema } from '#domain';
import { createLogger } from '#core';
import { services } from '#test-support';
import { createBrowserPool, type ManagedBrowserPool } from './browser-pool.ts';
import { runProbe } from './run.ts';
import { httpServer, probeContext, type TestServer } from './test-helpers.ts';

// Issue 21 item 1: a pool slot must come back on every path (abort or timeout at any step, a
// crashed or hung browser), and the pool must keep serving afterwards.

const MAX_PAGES = 2;
/** Generous: how long any aborted run may take to hand its slot back on a loaded two-core machine. */
const SETTLE_MS = 20_000;

let server: TestServer;
let pool: ManagedBrowserPool;
/** Requests the server has seen, by path; a test waits on one to abort at that step. */
const seen = new Map<string, Array<() => void>>();

function onRequest(path: string): Promise<void> {
  return new Promise((resolve) => seen.set(path, [...(seen.get(path) ?? []), resolve]));
}

beforeAll(async () => {
  server = await httpServer((req, res) => {
    const path = req.url?.split('?')[0] ?? '/';
    for (const resolve of seen.get(path) ?? []) resolve();
    seen.delete(path);
    switch (path) {
      case '/ok':
        res.setHeader('content-type', 'text/html');
        return res.end('<!doctype html><title>ok</title><p>fine</p>');
      case '/busy':
        // Loads, tells the server, then blocks its main thread: the metrics read cannot answer.
        res.setHeader('content-type', 'text/html');
        return res.end(
          `<!doctype html><p>busy</p><script>addEventListener('load', () => fetch('/loaded').finally(() => { for (;;) {} }));</script>`,
        );
      case '/loaded':
        return res.end('');
      default:
        // '/hang' and anything else: never answers (the 15 s page of the report, and longer).
        return undefined;
    }
  });
});
afterAll(async () => {
  await pool?.close();
  await server?.close();
});
afterEach(async () => {
  await pool?.close();
  for (const pid of chromiumPids()) signal(pid, 'SIGKILL');
});

function newPool(): ManagedBrowserPool {
  pool = createBrowserPool({
    executablePath: services().CHROMIUM_HEADLESS_SHELL_PATH,
    maxPages: MAX_PAGES,
    logger: createLogger({ level: 'silent' }),
  });
  return pool;
}

/** Chromium main processes this test process started (renderers are their children, not ours). */
function chromiumPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      // 'chromium', or the headless shell's name cut to 15 characters ('chromium-headle').
      if (comm.startsWith('chromium') && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while listed.
    }
  }
  return pids;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

const browser = (url: string) => ({ checkType: 'BROWSER' as const, browser: browserSchema.parse({ url }) });

/** Settles with 'settled' or 'stuck', never hangs the test. */
async function within<T>(promise: Promise<T>, ms = SETTLE_MS): Promise<'settled' | 'stuck'> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    promise.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), ms))),
  ]);
  clearTimeout(timer);
  return outcome;
}

/** A normal run passes: the pool still has its slots and a browser that answers. */
async function expectHealthy(p: ManagedBrowserPool): Promise<void> {
  const runs = await Promise.all(
    Array.from({ length: MAX_PAGES + 1 }, () =>
      runProbe(browser(`${server.url}/ok`), probeContext({ browser: p, timeoutMs: 30_000 })),
    ),
  );
  for (const { result } of runs) expect(result.errorMessage ?? 'passed').toBe('passed');
  expect(p.stats()).toMatchObject({ inFlight: 0, waiting: 0 });
}

describe('browser pool: slots come back on every path', () => {
  it('an abort at each step of withContext settles it and frees the slot', async () => {
    const p = newPool();
    const steps: Record<string, (abort: () => void) => Promise<unknown>> = {
      'before the context': (abort) => {
        abort();
        return p.withContext({ viewport: { width: 800, height: 600 }, signal: aborted() }, async () => undefined);
      },
      'during newPage': (abort) =>
        p.withContext({ viewport: { width: 800, height: 600 }, signal: current() }, async (context) => {
          const opening = context.newPage();
          abort();
          return opening;
        }),
      'during goto of a page that never answers': (abort) =>
        p.withContext({ viewport: { width: 800, height: 600 }, signal: current() }, async (context) => {
          const page = await context.newPage();
          void onRequest('/hang').then(abort);
          return page.goto(`${server.url}/hang`, { timeout: 120_000 });
        }),
      'during evaluate': (abort) =>
        p.withContext({ viewport: { width: 800, height: 600 }, signal: current() }, async (context) => {
          const page = await context.newPage();
          const evaluating = page.evaluate('new Promise(() => {})');
          setTimeout(abort, 50);
          return evaluating;
        }),
      'during close': (abort) =>
        p.withContext({ viewport: { width: 800, height: 600 }, signal: current() }, async (context) => {
          await context.newPage();
          queueMicrotask(abort);
          return 'done';
        }),
    };
    let controller = new AbortController();
    const current = () => controller.signal;
    const aborted = () => controller.signal;
    for (const [step, run] of Object.entries(steps)) {
      for (let round = 0; round < 3; round++) {
        controller = new AbortController();
        const c = controller;
        expect({ step, round, outcome: await within(run(() => c.abort(new Error(`aborted ${step}`)))) }).toEqual({
          step,
          round,
          outcome: 'settled',
        });
      }
    }
    await expectHealthy(p);
  });

  it('aborts and timeouts at each step of a probe run, then a normal run passes', async () => {
    const p = newPool();
    // Through the probe: an abort while its goto waits, while its metrics read hangs, and timeouts
    // spread over the whole run (newContext, newPage, goto, metrics, close) of a fast page.
    const gotoAbort = new AbortController();
    void onRequest('/hang').then(() => gotoAbort.abort());
    await runProbe(browser(`${server.url}/hang`), probeContext({ browser: p, signal: gotoAbort.signal }));
    const metricsAbort = new AbortController();
    void onRequest('/loaded').then(() => setTimeout(() => metricsAbort.abort(), 100));
    await runProbe(browser(`${server.url}/busy`), probeContext({ browser: p, signal: metricsAbort.signal }));
    for (const timeoutMs of [1, 5, 20, 50, 100, 200, 400, 800, 1600]) {
      await runProbe(browser(`${server.url}/ok`), probeContext({ browser: p, timeoutMs }));
    }
    await waitIdle(p);
    await expectHealthy(p);
  });

  it('50 runs against a page that never answers, aborted at once and timed out, then a normal run passes', async () => {
    const p = newPool();
    const controller = new AbortController();
    setMaxListeners(100, controller.signal); // one listener per run, by design of this test
    const requested = onRequest('/hang');
    const runs = Array.from({ length: 50 }, (_, i) =>
      runProbe(
        browser(`${server.url}/hang?run=${i}`),
        probeContext({ browser: p, signal: controller.signal, timeoutMs: 60_000 }),
      ),
    );
    await requested;
    expect(p.stats()).toMatchObject({ inFlight: MAX_PAGES, waiting: 50 - MAX_PAGES });
    controller.abort(new Error('trigger cancelled'));
    for (const { result } of await Promise.all(runs)) expect(result.hasFailures).toBe(true);
    // And the report's case: more runs than slots, each timing out while the page never answers.
    const timedOut = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        runProbe(browser(`${server.url}/hang?late=${i}`), probeContext({ browser: p, timeoutMs: 300 + i * 150 })),
      ),
    );
    for (const { result } of timedOut) expect(result.errorMessage).toContain('timed out');
    await waitIdle(p);
    await expectHealthy(p);
  });

  it('a browser killed mid-run fails that run only; the next run passes on a new browser', async () => {
    const p = newPool();
    const running = runProbe(browser(`${server.url}/hang`), probeContext({ browser: p, timeoutMs: 60_000 }));
    await onRequest('/hang');
    const [pid] = chromiumPids();
    expect(pid).toBeTypeOf('number');
    signal(pid!, 'SIGKILL');
    const { result } = await running;
    expect(result.hasFailures).toBe(true);
    await waitIdle(p);
    await expectHealthy(p);
    expect(chromiumPids()).not.toContain(pid);
    expect(p.stats()).toMatchObject({ launches: 2, replaced: 1 });
  });

  it('a browser that stops answering (SIGSTOP) mid-run: the run ends by its deadline, the pool replaces it', async () => {
    const p = newPool();
    const running = runProbe(browser(`${server.url}/hang`), probeContext({ browser: p, timeoutMs: 3000 }));
    await onRequest('/hang');
    const [pid] = chromiumPids();
    expect(pid).toBeTypeOf('number');
    // Every CDP call from now on hangs, the context's close included.
    signal(pid!, 'SIGSTOP');
    const { result } = await running;
    expect(result.errorMessage).toContain('timed out');
    await waitIdle(p);
    await expectHealthy(p);
    expect(chromiumPids()).not.toContain(pid);
    expect(p.stats()).toMatchObject({ launches: 2, replaced: 1 });
  });
});

/** Resolves once no run holds or waits for a slot; rejects after SETTLE_MS. */
async function waitIdle(p: ManagedBrowserPool): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  while (p.stats().inFlight > 0 || p.stats().waiting > 0) {
    if (Date.now() > deadline) throw new Error(`slots still held: ${JSON.stringify(p.stats())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
