import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSchema } from '#domain';
import { createLogger } from '#core';
import { services } from '#test-support';
import { createBrowserPool } from './browser-pool.ts';
import { runProbe } from './run.ts';
import { httpServer, probeContext, type TestServer } from './test-helpers.ts';
import type { BrowserPool } from './types.ts';

// The layout shift happens after the first paint (so it counts), and a slow image holds the
// load event until well after it.
const PAGE = `<!doctype html>
<html><head><title>vigil test page</title></head>
<body style="margin:0;font:16px sans-serif">
<p id="first">Content that will be pushed down by a late banner.</p>
<p>More text so the shift moves a visible area.</p>
<img src="/missing.png" alt="missing">
<img src="/slow.png" alt="slow" width="10" height="10">
<script>
  console.error('deliberate console error');
  new PerformanceObserver((list) => {
    if (!list.getEntries().some((e) => e.name === 'first-contentful-paint')) return;
    setTimeout(() => {
      const banner = document.createElement('div');
      banner.style.height = '300px';
      banner.textContent = 'late banner';
      document.body.prepend(banner);
    }, 50);
  }).observe({ type: 'paint', buffered: true });
</script>
</body></html>`;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

let server: TestServer;
let pool: BrowserPool;

beforeAll(async () => {
  server = await httpServer((req, res) => {
    switch (req.url?.split('?')[0]) {
      case '/':
        res.setHeader('content-type', 'text/html');
        return res.end(PAGE);
      case '/slow.png':
        setTimeout(() => res.end(PNG), 1000);
        return undefined;
      case '/redirect-to-loopback':
        res.statusCode = 302;
        res.setHeader('location', `http://localhost:${server.port}/`);
        return res.end();
      case '/gone':
        res.statusCode = 410;
        return res.end('gone');
      default:
        res.statusCode = 404;
        return res.end('not found');
    }
  });
  pool = createBrowserPool({
    executablePath: services().CHROMIUM_HEADLESS_SHELL_PATH,
    maxPages: 2,
    logger: createLogger({ level: 'silent' }),
  });
});
afterAll(async () => {
  await pool?.close();
  await server?.close();
});

const browser = (url: string) => ({ checkType: 'BROWSER' as const, browser: browserSchema.parse({ url }) });

describe('browser probe in Chromium', () => {
  it('fills pages[] with web vitals, console and network errors', async () => {
    const { result } = await runProbe(browser(`${server.url}/`), probeContext({ browser: pool, timeoutMs: 30_000 }));
    expect(result).toMatchObject({ checkType: 'BROWSER', hasFailures: false });
    const [page] = result.pages ?? [];
    expect(page).toBeDefined();
    expect(page!.url).toBe(`${server.url}/`);
    expect(page!.CLS).toBeGreaterThan(0);
    expect(page!.consoleErrors).toBeGreaterThanOrEqual(1);
    expect(page!.networkErrors).toBeGreaterThanOrEqual(1);
    expect(page!.documentErrors).toBe(0);
    expect(page!.TTFB).toBeGreaterThanOrEqual(0);
    expect(page!.FCP).toBeGreaterThan(0);
    expect(page!.LCP).toBeGreaterThan(0);
    expect(page!.TBT).toBeGreaterThanOrEqual(0);
  });

  it('fails on a document status of 400 or more', async () => {
    const { result } = await runProbe(browser(`${server.url}/gone`), probeContext({ browser: pool }));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toBe('document status 410');
    expect(result.pages?.[0]?.documentErrors).toBe(1);
  });

  it('fails on a navigation error', async () => {
    // A port that was just free: nothing listens there (Chromium refuses well-known ports like 1 itself).
    const closed = await httpServer(() => {});
    await closed.close();
    const { result } = await runProbe(browser(`${closed.url}/`), probeContext({ browser: pool }));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('ERR_CONNECTION_REFUSED');
  });

  it('refuses private targets without allowPrivate: literal, by name, and through the policy proxy', async () => {
    const literal = await runProbe(browser(`${server.url}/`), probeContext({ browser: pool, allowPrivate: false }));
    expect(literal.result.errorMessage).toContain('VIGIL_ALLOW_PRIVATE_TARGETS');
    // A name is resolved by the proxy Chromium connects through, which refuses loopback.
    const named = await runProbe(
      browser(`http://localhost:${server.port}/`),
      probeContext({ browser: pool, allowPrivate: false }),
    );
    expect(named.result.hasFailures).toBe(true);
    expect(named.result.errorMessage).toContain('localhost resolves to a blocked address');
    expect(named.result.errorMessage).toContain('VIGIL_ALLOW_PRIVATE_TARGETS');
  });

  it('keeps a secret in the URL out of pages[] and the error', async () => {
    const secret = 'browser-S3CRET';
    const outcome = await runProbe(
      browser(`${server.url}/gone?token={{TOKEN}}`),
      probeContext({ browser: pool, variables: { TOKEN: secret }, secretValues: [secret] }),
    );
    expect(outcome.result.pages?.[0]?.url).toBe(`${server.url}/gone?token=********`);
    expect(JSON.stringify(outcome)).not.toContain(secret);
  });

  it('runs without a pool as a failed run naming the reason', async () => {
    const { result } = await runProbe(browser(`${server.url}/`), probeContext());
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('browser pool');
  });
});
