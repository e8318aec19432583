/**
 * What one screenshot costs, apart from everything else a run does: CPU of this process and of
 * Chromium's process tree (from /proc) around a single DevTools capture of a loopback page that
 * is already loaded and painted, for a viewport and a full-page PNG at several page heights. It
 * prints the cost per megapixel, which is what bounds issue 25's ratio: with artifacts on, a
 * failing run pays the full-page capture on top of the run itself.
 *
 *   npm run bench -- artifacts-capture [--captures 15] [--browser /path/to/chromium]
 *
 * The capture is the probe's own (libs/probes/browser-artifacts.ts): Page.getLayoutMetrics, then
 * Page.captureScreenshot with captureBeyondViewport, optimizeForSpeed and a clip of the whole page.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '#probes';
import { benchConfig } from './config.ts';
import { printMachine, printTable, writeResults } from './support/report.ts';
import { median, treeCpuMs } from './support/rounds.ts';
import { round } from './support/stats.ts';

const WIDTH = 1280;
const VIEWPORT_HEIGHT = 720;
/** Paragraph counts: about one viewport, the artifacts bench's page (about 2,000 px) and twice that. */
const PAGES = [14, 60, 120];

const page = (paragraphs: number) =>
  `<!doctype html><html><body style="font:16px sans-serif"><h1>503</h1>${'<p>Order summary, line item, price, quantity and a little more text per row.</p>'.repeat(paragraphs)}</body></html>`;

async function capture(
  context: BrowserContext,
  target: Page,
  fullPage: boolean,
): Promise<{ width: number; height: number }> {
  const cdp = await context.newCDPSession(target);
  try {
    const metrics = (await cdp.send('Page.getLayoutMetrics')) as { cssContentSize: { width: number; height: number } };
    const width = fullPage ? Math.ceil(metrics.cssContentSize.width) : WIDTH;
    const height = fullPage ? Math.ceil(metrics.cssContentSize.height) : VIEWPORT_HEIGHT;
    await cdp.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: fullPage,
      optimizeForSpeed: true,
      clip: { x: 0, y: 0, width, height, scale: 1 },
    });
    return { width, height };
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { captures: { type: 'string', default: '15' }, browser: { type: 'string' } },
  });
  const captures = Number(values.captures);
  const executablePath = values.browser ?? benchConfig.chromiumHeadlessShellPath;
  printMachine();
  const server = createServer((req, res) => {
    res.writeHead(503, { 'content-type': 'text/html' });
    res.end(page(Number(new URL(req.url ?? '/', 'http://x').searchParams.get('p') ?? 60)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  const rows: unknown[][] = [];
  const results: Record<string, unknown>[] = [];
  try {
    const variants = [
      { label: 'none (the measurement itself)', paragraphs: PAGES[1]!, fullPage: undefined },
      ...PAGES.map((paragraphs) => ({
        label: `viewport, page of ${paragraphs} paragraphs`,
        paragraphs,
        fullPage: false,
      })),
      ...PAGES.map((paragraphs) => ({ label: `full page, ${paragraphs} paragraphs`, paragraphs, fullPage: true })),
    ];
    const samples = new Map(variants.map((variant) => [variant.label, [] as number[]]));
    const sizes = new Map<string, number>();
    // Interleaved, a fresh context per capture: what a run's single capture meets.
    for (let i = 0; i < captures; i++) {
      for (const variant of variants) {
        const context = await browser.newContext({ viewport: { width: WIDTH, height: VIEWPORT_HEIGHT } });
        try {
          const target = await context.newPage();
          await target.goto(`${base}?p=${variant.paragraphs}`);
          await target.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
          const before = treeCpuMs();
          if (variant.fullPage !== undefined) {
            const { width, height } = await capture(context, target, variant.fullPage);
            sizes.set(variant.label, width * height);
          }
          // Chromium's raster and encoding threads finish their share within a few ms of the answer.
          await new Promise((resolve) => setTimeout(resolve, 30));
          samples.get(variant.label)!.push(treeCpuMs() - before);
        } finally {
          await context.close();
        }
      }
    }
    const floor = median(samples.get(variants[0]!.label)!);
    for (const variant of variants) {
      const cpu = median(samples.get(variant.label)!) - (variant.fullPage === undefined ? 0 : floor);
      const pixels = sizes.get(variant.label) ?? 0;
      const perMp = pixels > 0 ? round(cpu / (pixels / 1e6), 1) : '';
      rows.push([variant.label, pixels > 0 ? round(pixels / 1e6, 2) : '', round(cpu, 1), perMp]);
      results.push({ variant: variant.label, megapixels: pixels / 1e6, cpuMs: cpu, msPerMegapixel: perMp });
    }
  } finally {
    await browser.close();
    server.close();
  }
  printTable(
    `one capture, CPU of this process and Chromium (median of ${captures}, less the measurement's own)`,
    ['capture', 'megapixels', 'CPU ms', 'ms per megapixel'],
    rows,
  );
  console.log(
    "budget: failing runs with artifacts at 0.8 of the rate without leave the whole extra (trace, screenshot, store) at most 0.25 of an off run's CPU (npm run bench -- artifacts prints it)",
  );
  writeResults('artifacts-capture', { captures, executablePath, results });
}
