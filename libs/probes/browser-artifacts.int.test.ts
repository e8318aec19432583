import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { browserSchema } from '#domain';
import { decodePng, services, zipEntries } from '#test-support';
import { createBrowserPool } from './browser-pool.ts';
import { runProbe } from './run.ts';
import { httpServer, probeContext, type TestServer } from './test-helpers.ts';
import type { BrowserPool } from './types.ts';

// A page taller than the viewport (so full-page shows), with a red block near its end.
const FAILING = `<!doctype html><html><body style="margin:0;background:#fff">
<h1 style="height:900px;margin:0">Service unavailable</h1>
<div id="red" style="width:300px;height:200px;background:#ff0000"></div>
</body></html>`;

/** One entry's text, found through the zip's central directory (stored or deflated). */
function zipText(zip: Buffer, name: string): string {
  let at = zip.readUInt32LE(zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) + 16);
  while (zip.readUInt32LE(at) === 0x02014b50) {
    const [method, size, nameLength] = [
      zip.readUInt16LE(at + 10),
      zip.readUInt32LE(at + 20),
      zip.readUInt16LE(at + 28),
    ];
    const local = zip.readUInt32LE(at + 42);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      return (method === 8 ? inflateRawSync(data) : data).toString('utf8');
    }
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  throw new Error(`${name} is not in the zip`);
}

let server: TestServer;
let pool: BrowserPool;

beforeAll(async () => {
  server = await httpServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.statusCode = req.url === '/ok' ? 200 : 503;
    res.end(req.url === '/ok' ? '<p>fine</p>' : FAILING);
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

const browser = (path: string, extra: Record<string, unknown> = {}) => ({
  checkType: 'BROWSER' as const,
  browser: browserSchema.parse({ url: `${server.url}${path}`, viewport: { width: 800, height: 600 }, ...extra }),
});

describe('browser run artifacts', () => {
  it('keeps a full-page PNG of the failing page and a Playwright trace', async () => {
    const outcome = await runProbe(browser('/down'), probeContext({ browser: pool, timeoutMs: 30_000 }));
    expect(outcome.result.hasFailures).toBe(true);
    const kinds = (outcome.artifacts ?? []).map((a) => a.kind);
    expect(kinds).toEqual(['screenshot', 'trace']);

    const screenshot = outcome.artifacts![0]!;
    expect(screenshot.contentType).toBe('image/png');
    const png = decodePng(screenshot.body);
    expect(png.width).toBe(800);
    // Full page: the 900 px heading plus the 200 px block, beyond the 600 px viewport.
    expect(png.height).toBeGreaterThanOrEqual(1100);
    const at = (x: number, y: number) =>
      Array.from(png.rgba.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3));
    expect(at(150, 1000)).toEqual([255, 0, 0]);
    expect(at(700, 1000)).toEqual([255, 255, 255]);
    const colours = new Set<number>();
    for (let i = 0; i < png.rgba.length; i += 4)
      colours.add((png.rgba[i]! << 16) | (png.rgba[i + 1]! << 8) | png.rgba[i + 2]!);
    expect(colours.size).toBeGreaterThan(2); // text too, not a blank or two-colour canvas

    const trace = outcome.artifacts![1]!;
    expect(trace.contentType).toBe('application/zip');
    const entries = zipEntries(trace.body);
    expect(entries).toContain('trace.trace');
    expect(entries).toContain('trace.network');
    // What the viewer shows: the navigation, a DOM snapshot of the page after it, and the 503 in
    // the network log (recorded with the DOM snapshots; the screencast is off).
    const events = zipText(trace.body, 'trace.trace')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; method?: string; snapshot?: { html?: unknown } });
    expect(events.some((e) => e.type === 'before' && e.method === 'goto')).toBe(true);
    const snapshots = events.filter((e) => e.type === 'frame-snapshot');
    expect(JSON.stringify(snapshots.map((e) => e.snapshot?.html))).toContain('Service unavailable');
    expect(events.some((e) => e.type === 'screencast-frame')).toBe(false);
    const network = zipText(trace.body, 'trace.network')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { snapshot?: { request: { url: string }; response: { status: number } } });
    expect(network.some((e) => e.snapshot?.request.url.endsWith('/down') && e.snapshot.response.status === 503)).toBe(
      true,
    );
  });

  it('keeps nothing from a passing run by default, and both with artifacts ALWAYS', async () => {
    const passing = await runProbe(browser('/ok'), probeContext({ browser: pool, timeoutMs: 30_000 }));
    expect(passing.result.hasFailures).toBe(false);
    expect(passing.artifacts).toBeUndefined();
    const always = await runProbe(
      browser('/ok', { artifacts: 'ALWAYS' }),
      probeContext({ browser: pool, timeoutMs: 30_000 }),
    );
    expect(always.artifacts?.map((a) => a.kind)).toEqual(['screenshot', 'trace']);
  });

  it('keeps them for a degraded run, and never with artifacts NEVER', async () => {
    const degraded = await runProbe(
      browser('/ok'),
      probeContext({ browser: pool, timeoutMs: 30_000, degradedResponseTime: 0 }),
    );
    expect(degraded.result.isDegraded).toBe(true);
    expect(degraded.artifacts?.map((a) => a.kind)).toEqual(['screenshot', 'trace']);
    const never = await runProbe(
      browser('/down', { artifacts: 'NEVER' }),
      probeContext({ browser: pool, timeoutMs: 30_000 }),
    );
    expect(never.result.hasFailures).toBe(true);
    expect(never.artifacts).toBeUndefined();
  });
});
