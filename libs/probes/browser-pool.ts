import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import type { Logger } from '#core';
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

export interface BrowserPoolOptions {
  executablePath: string;
  /** Runs (browser contexts) open at once; more wait for a slot. */
  maxPages: number;
  logger: Logger;
}

/**
 * One Chromium per process, launched on first use and again if it dies; each run gets a fresh
 * context (no cookies, cache or storage shared between runs or accounts).
 */
export function createBrowserPool(options: BrowserPoolOptions): BrowserPool {
  const log = options.logger.child({ component: 'browser-pool' });
  let browser: Promise<Browser> | undefined;
  let closed = false;
  let active = 0;
  const waiting: Array<() => void> = [];

  function launch(): Promise<Browser> {
    if (!browser) {
      const launching = chromium.launch({
        executablePath: options.executablePath,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      browser = launching;
      launching.then(
        (b) => {
          log.info({ version: b.version() }, 'chromium launched');
          b.on('disconnected', () => {
            if (browser === launching) browser = undefined;
            if (!closed) log.warn('chromium disconnected; the next run launches it again');
          });
        },
        (error: unknown) => {
          if (browser === launching) browser = undefined;
          log.error({ err: error }, 'chromium failed to launch');
        },
      );
    }
    return browser;
  }

  async function acquire(signal?: AbortSignal): Promise<void> {
    if (active < options.maxPages) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = waiting.indexOf(grant);
        if (index >= 0) waiting.splice(index, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(grant);
    });
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  }

  return {
    async withContext<T>(run: BrowserRunOptions, work: (context: BrowserContext) => Promise<T>): Promise<T> {
      if (closed) throw new Error('the browser pool is closed');
      await acquire(run.signal);
      let context: BrowserContext | undefined;
      const onAbort = () => void context?.close().catch(() => {});
      try {
        const instance = await launch();
        context = await instance.newContext({
          viewport: run.viewport,
          serviceWorkers: 'block',
          ...(run.proxy ? { proxy: { server: run.proxy.server } } : {}),
        });
        run.signal?.addEventListener('abort', onAbort, { once: true });
        if (run.signal?.aborted) onAbort();
        return await work(context);
      } finally {
        run.signal?.removeEventListener('abort', onAbort);
        await context?.close().catch(() => {});
        release();
      }
    },
    async close(): Promise<void> {
      closed = true;
      const current = browser;
      browser = undefined;
      if (current) await current.then((b) => b.close()).catch(() => {});
    },
  };
}
