import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '#core';
import { createHttpServer, createMetricsRegistry } from '#http';
import { webRoutes, wantsConsole } from './web.ts';

// The console's page is for browsers: an API client asking for a path that does not exist gets
// the JSON 404, never index.html read as data (issue 28, bug 2).

let app: FastifyInstance;
let url: string;
let dir: string;

const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<div id="app"></div>');
  writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
  app = await createHttpServer({
    log: createLogger({ level: 'silent' }),
    title: 'Test',
    version: '1',
    metrics: createMetricsRegistry(),
    readiness: [],
  });
  webRoutes(app, dir);
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the console fallback', () => {
  it('a browser gets index.html for a deep link and for /', async () => {
    for (const path of ['/', '/checks/some/deep/link']) {
      const response = await fetch(`${url}${path}`, { headers: { accept: browser } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('<div id="app">');
    }
  });

  it('an API client gets the JSON 404: Accept JSON, a bare wildcard, no Accept, or a Bearer key', async () => {
    const clients: Record<string, string>[] = [
      { accept: 'application/json' },
      { accept: '*/*' },
      { accept: 'application/json, text/plain, */*' },
      {},
      { accept: browser, authorization: 'Bearer vgl_x' },
      { accept: 'text/html;q=0' },
    ];
    for (const headers of clients) {
      const response = await fetch(`${url}/accounts/me`, { headers });
      expect(response.status, JSON.stringify(headers)).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(await response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
  });

  it('files of the build are served by their own names to anyone', async () => {
    const asset = await fetch(`${url}/assets/app-1234.js`, { headers: { accept: '*/*' } });
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('console.log(1)');
  });

  it('reads Accept as a list of media ranges with q values', () => {
    expect(wantsConsole({ accept: 'text/*' })).toBe(true);
    expect(wantsConsole({ accept: 'application/json;q=1, TEXT/HTML ; q=0.5' })).toBe(true);
    expect(wantsConsole({ accept: 'text/html;q=0.0' })).toBe(false);
    expect(wantsConsole({ accept: 'text/htmlx' })).toBe(false);
  });
});
