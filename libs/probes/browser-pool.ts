import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import type { Logger } from '#core';
import { bounded, BrowserCallTimeout } from './browser-bound.ts';
import { guardPlaywrightConnection } from './playwright-guard.ts';
import type { BrowserPool, BrowserRunOptions } from './types.ts';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  // QUIC would bypass the SOCKS proxy that enforces the address policy.
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launching Chromium and connecting to it. */
const LAUNCH_MS = 30_000;
/** A browser that does not answer a trivial CDP call within this long is replaced. */
const HEALTH_MS = 3000;
/** An answer this recent stands in for the health check (it costs a CDP session per run otherwise). */
const FRESH_MS = 1000;
/** Creating or closing a context; past this the browser is taken as hung and replaced. */
const CONTEXT_MS = 10_000;
/** A run with no signal of its own still ends (callers always pass one; this is the backstop). */
const UNSIGNALLED_RUN_MS = 120_000;

export interface BrowserPoolOptions {
  executablePath: string;
  /** Switches added to CHROMIUM_ARGS (benchmarks compare raster switches with them). */
  extraArgs?: readonly string[];
  /** Runs (browser contexts) open at once; more wait for a slot. */
  maxPages: number;
  logger: Logger;
}

export interface BrowserPoolStats {
  maxPages: number;
  /** Runs holding a slot. */
  inFlight: number;
  /** Runs waiting for one. */
  waiting: number;
  /** Chromium processes started, and replaced because they died or stopped answering. */
  launches: number;
  replaced: number;
}

export interface ManagedBrowserPool extends BrowserPool {
  stats(): BrowserPoolStats;
}

interface Instance {
  browser: Browser;
  /** Chromium's main process, which leads its own process group. */
  pid: number;
  /** The health check in flight, shared by the runs acquiring meanwhile. */
  check?: Promise<boolean>;
  /** When Chromium last answered a call (performance.now()). */
  answeredAt: number;
}

interface Launch {
  starting: Promise<Instance>;
  instance?: Instance;
}

interface Waiter {
  grant(): void;
  refuse(error: unknown): void;
}

/** The browser process's pid, as Chromium reports it (Playwright's launch does not expose it). */
async function browserPid(browser: Browser): Promise<number> {
  const session = await bounded(browser.newBrowserCDPSession(), 'chromium pid', undefined, HEALTH_MS);
  try {
    const info = (await bounded(session.send('SystemInfo.getProcessInfo'), 'chromium pid', undefined, HEALTH_MS)) as {
      processInfo: { type: string; id: number }[];
    };
    const pid = info.processInfo.find((entry) => entry.type === 'browser')?.id;
    if (!Number.isInteger(pid) || pid! <= 1) throw new Error('chromium did not report its process id');
    return pid!;
  } finally {
    void session.detach().catch(() => undefined);
  }
}

/** SIGKILL to the browser's process group: a stopped or hung browser ignores anything gentler. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * One Chromium per process, launched on first use and replaced when it dies or stops answering;
 * each run gets a fresh context (no cookies, cache or storage shared between runs or accounts).
 * Every browser call is bounded by the run's signal or a limit of its own, so a slot comes back
 * on every path: abort, timeout, a crashed browser, a CDP call that never answers.
 */
export function createBrowserPool(options: BrowserPoolOptions): ManagedBrowserPool {
  const log = options.logger.child({ component: 'browser-pool' });
  let current: Launch | undefined;
  let closed = false;
  let active = 0;
  let launches = 0;
  let replaced = 0;
  const waiting: Waiter[] = [];

  async function start(): Promise<Instance> {
    launches += 1;
    // In this process (launch, not launchServer and connect): a screenshot or a trace then crosses
    // no loopback websocket, where Playwright deflates and parses it twice (measured 25 → 9 ms of
    // this process's CPU per full-page screenshot). The process group is still ours to kill, by the
    // pid Chromium reports. Signals are the app's: it drains its runs, then closes the pool.
    const browser = await chromium.launch({
      executablePath: options.executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, ...(options.extraArgs ?? [])],
      timeout: LAUNCH_MS,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    guardPlaywrightConnection(browser, log);
    try {
      const pid = await browserPid(browser);
      log.info({ version: browser.version(), pid }, 'chromium launched');
      return { browser, pid, answeredAt: performance.now() };
    } catch (error) {
      await bounded(browser.close(), 'chromium close', undefined, CONTEXT_MS).catch(() => undefined);
      throw error;
    }
  }

  function launch(): Promise<Instance> {
    if (current) return current.starting;
    const entry: Launch = { starting: start() };
    current = entry;
    entry.starting.then(
      (instance) => {
        entry.instance = instance;
        // Through a pipe, the connection ends when the process does: a killed browser is dropped at once.
        instance.browser.on('disconnected', () => retire(instance, 'disconnected'));
      },
      (error: unknown) => {
        if (current === entry) current = undefined;
        log.error({ err: error }, 'chromium failed to launch');
      },
    );
    return entry.starting;
  }

  /** Drops the browser and kills its process; the next run launches another. */
  function retire(instance: Instance, reason: string): void {
    if (current?.instance !== instance) return;
    current = undefined;
    if (!closed) {
      replaced += 1;
      log.warn({ reason }, 'chromium replaced; the next run launches it again');
    }
    killGroup(instance.pid);
    // Lets Playwright settle its side (pending calls fail now, its profile directory is removed).
    void bounded(instance.browser.close(), 'chromium close', undefined, CONTEXT_MS).catch(() => undefined);
  }

  function answers(instance: Instance): Promise<boolean> {
    if (!instance.browser.isConnected()) return Promise.resolve(false);
    if (performance.now() - instance.answeredAt < FRESH_MS) return Promise.resolve(true);
    instance.check ??= (async () => {
      const session = await bounded(
        instance.browser.newBrowserCDPSession(),
        'chromium health check',
        undefined,
        HEALTH_MS,
      );
      await bounded(session.send('Browser.getVersion'), 'chromium health check', undefined, HEALTH_MS);
      void session.detach().catch(() => undefined);
      instance.answeredAt = performance.now();
      return true;
    })()
      .catch(() => false)
      .finally(() => (instance.check = undefined));
    return instance.check;
  }

  /** A browser that answers: the current one, or a new one when it died or hangs. */
  async function ready(signal: AbortSignal): Promise<Instance> {
    for (let attempt = 1; ; attempt++) {
      const instance = await bounded(launch(), 'chromium launch', signal);
      if (await bounded(answers(instance), 'chromium health check', signal)) return instance;
      retire(instance, 'unresponsive');
      if (attempt >= 2) throw new Error('chromium does not answer, even after a restart');
    }
  }

  async function acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    if (active < options.maxPages) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        refuse: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const index = waiting.indexOf(waiter);
        if (index >= 0) waiting.splice(index, 1);
        reject(signal.reason ?? new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push(waiter);
    });
  }

  /** Hands the slot to the next waiter (it stays counted) or frees it. */
  function release(): void {
    const next = waiting.shift();
    if (next) next.grant();
    else active -= 1;
  }

  async function openContext(instance: Instance, run: BrowserRunOptions, signal: AbortSignal) {
    const creating = instance.browser.newContext({
      viewport: run.viewport,
      serviceWorkers: 'block',
      ...(run.proxy ? { proxy: { server: run.proxy.server } } : {}),
    });
    try {
      const context = await bounded(creating, 'browser newContext', signal, CONTEXT_MS);
      instance.answeredAt = performance.now();
      return context;
    } catch (error) {
      // Created after the run gave up on it: nobody else would close it.
      creating.then((late) => void late.close().catch(() => undefined)).catch(() => undefined);
      if (error instanceof BrowserCallTimeout) retire(instance, 'newContext hung');
      throw error;
    }
  }

  return {
    async withContext<T>(run: BrowserRunOptions, work: (context: BrowserContext) => Promise<T>): Promise<T> {
      if (closed) throw new Error('the browser pool is closed');
      const signal = run.signal ?? AbortSignal.timeout(UNSIGNALLED_RUN_MS);
      await acquire(signal);
      let instance: Instance | undefined;
      let context: BrowserContext | undefined;
      let closing: Promise<void> | undefined;
      // Closing on abort makes the run's pending calls fail now, rather than at their own timeouts.
      const close = () => {
        if (!context || !instance) return Promise.resolve();
        const owner = instance;
        closing ??= bounded(context.close(), 'browser context close', undefined, CONTEXT_MS).catch((error) => {
          if (error instanceof BrowserCallTimeout) retire(owner, 'context close hung');
        });
        return closing;
      };
      const onAbort = () => void close();
      try {
        instance = await ready(signal);
        context = await openContext(instance, run, signal);
        signal.addEventListener('abort', onAbort, { once: true });
        return await bounded(work(context), 'browser run', signal);
      } catch (error) {
        // A failed run may have met a dying browser: the next run asks it first rather than trusting it.
        if (instance) instance.answeredAt = 0;
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort);
        await close();
        release();
      }
    },
    stats: () => ({ maxPages: options.maxPages, inFlight: active, waiting: waiting.length, launches, replaced }),
    async close(): Promise<void> {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.refuse(new Error('the browser pool is closed'));
      const entry = current;
      current = undefined;
      const instance = await entry?.starting.catch(() => undefined);
      if (!instance) return;
      await bounded(instance.browser.close(), 'chromium close', undefined, CONTEXT_MS).catch(() =>
        killGroup(instance.pid),
      );
    },
  };
}
