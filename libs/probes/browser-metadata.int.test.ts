import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSchema } from '#domain';
import { createLogger } from '#core';
import { services } from '#test-support';
import { createBrowserPool } from './browser-pool.ts';
import { runProbe } from './run.ts';
import { httpServer, probeContext, type TestServer } from './test-helpers.ts';
import type { BrowserPool } from './types.ts';

// Cloud metadata addresses stay refused for browser checks when private targets are allowed:
// the check's page may redirect there, or load from there.
let server: TestServer;
let pool: BrowserPool;
const METADATA_URL = 'http://169.254.169.254/latest/meta-data/';

beforeAll(async () => {
  server = await httpServer((req, res) => {
    if (req.url === '/to-metadata') {
      res.statusCode = 302;
      res.setHeader('location', METADATA_URL);
      return res.end();
    }
    res.setHeader('content-type', 'text/html');
    return res.end('<!doctype html><title>local</title><p>a private target, allowed</p>');
  });
  pool = createBrowserPool({
    executablePath: services().CHROMIUM_HEADLESS_SHELL_PATH,
    maxPages: 1,
    logger: createLogger({ level: 'silent' }),
  });
});
afterAll(async () => {
  await pool?.close();
  await server?.close();
});

const browser = (url: string) => ({ checkType: 'BROWSER' as const, browser: browserSchema.parse({ url }) });
const ctx = () => probeContext({ browser: pool, allowPrivate: true, timeoutMs: 20_000 });

describe('browser checks and cloud metadata, private targets allowed', () => {
  it('loads a private page', async () => {
    const { result } = await runProbe(browser(`${server.url}/`), ctx());
    expect(result).toMatchObject({ hasFailures: false });
  });

  it('refuses the metadata address as the check URL', async () => {
    const { result } = await runProbe(browser(METADATA_URL), ctx());
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('cloud metadata');
  });

  it('never reaches the metadata address through a redirect', async () => {
    const { result } = await runProbe(browser(`${server.url}/to-metadata`), ctx());
    expect(result.hasFailures).toBe(true);
    // Reaching it would give a document (with whatever status); refused, the navigation fails.
    expect(result.errorMessage).not.toMatch(/document status/);
    expect(result.errorMessage).toMatch(/navigation .* failed/);
  });
});
