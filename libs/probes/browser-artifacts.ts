import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { BrowserDefinition } from '#domain';
import { bounded } from './browser-bound.ts';
import type { RawArtifact } from './types.ts';

/** Each capture call's own limit: evidence must not keep a finished run waiting long. */
const CAPTURE_TIMEOUT_MS = 10_000;
/** A full-page screenshot of an endless page is cut here instead of filling the store. */
const MAX_SCREENSHOT_BYTES = 20 * 1024 * 1024;
/** Taller pages are cut at this many CSS pixels (Chromium's own limit for one capture is 16,384). */
const MAX_SCREENSHOT_HEIGHT = 16_384;

/**
 * A full-page PNG in one DevTools call (captureBeyondViewport over the page's layout size): about
 * half the time of page.screenshot({ fullPage }), which also waits for fonts, frames and a resized
 * viewport (measured 124 ms against 220 ms at p50 for a 1280×2181 page), so failing runs pay less.
 */
async function fullPagePng(context: BrowserContext, page: Page): Promise<Buffer> {
  const cdp = await context.newCDPSession(page);
  try {
    const metrics = (await cdp.send('Page.getLayoutMetrics')) as { cssContentSize: { width: number; height: number } };
    const width = Math.max(1, Math.ceil(metrics.cssContentSize.width));
    const height = Math.max(1, Math.min(MAX_SCREENSHOT_HEIGHT, Math.ceil(metrics.cssContentSize.height)));
    const shot = await cdp.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
      // Faster encoding for a larger file (measured 122 against 205 ms, 426 against 324 KB): the
      // run's slot is the scarce thing, the store is not.
      optimizeForSpeed: true,
      clip: { x: 0, y: 0, width, height, scale: 1 },
    });
    return Buffer.from(shot.data, 'base64');
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The full-page PNG, or nothing when the page cannot be captured (a crashed page, a closed context). */
async function takeScreenshot(
  context: BrowserContext,
  page: Page,
  signal: AbortSignal,
): Promise<RawArtifact | undefined> {
  try {
    const png = await bounded(
      // Playwright's own full-page screenshot when DevTools' capture fails (a crashed renderer…).
      fullPagePng(context, page).catch(() =>
        page.screenshot({ fullPage: true, type: 'png', timeout: CAPTURE_TIMEOUT_MS }),
      ),
      'browser screenshot',
      signal,
      CAPTURE_TIMEOUT_MS + 1_000,
    );
    if (png.length <= MAX_SCREENSHOT_BYTES)
      return { kind: 'screenshot', contentType: 'image/png', body: png, name: 'screenshot.png' };
  } catch {
    // No screenshot: the trace may still tell what happened.
  }
  return undefined;
}

/** Stops the trace into trace.zip; without it the run's result stands all the same. */
async function stopTrace(context: BrowserContext, signal: AbortSignal): Promise<RawArtifact | undefined> {
  const path = join(tmpdir(), `vigil-trace-${randomUUID()}.zip`);
  try {
    await bounded(context.tracing.stop({ path }), 'browser tracing.stop', signal, CAPTURE_TIMEOUT_MS);
    return { kind: 'trace', contentType: 'application/zip', body: await readFile(path), name: 'trace.zip' };
  } catch {
    return undefined;
  } finally {
    await rm(path, { force: true });
  }
}

/** Starts the trace when the check may keep one; a failure to start costs the evidence, never the run. */
export async function startCapture(
  context: BrowserContext,
  definition: BrowserDefinition,
  signal: AbortSignal,
): Promise<boolean> {
  if (definition.artifacts === 'NEVER') return false;
  try {
    // DOM snapshots and network, no screencast: the trace viewer shows each action's page. The DOM
    // snapshots stay although they cost the most of the recording (goto 93 → 172 ms at p50): in
    // Playwright 1.65 the same switch records the network log, which is what explains most failures.
    // The screencast stays off: the full-page PNG shows the page as it was left.
    await bounded(
      context.tracing.start({ snapshots: true, screenshots: false, sources: false }),
      'browser tracing.start',
      signal,
      CAPTURE_TIMEOUT_MS,
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends the trace: on a run to keep (ALWAYS, or a failed or degraded one), a full-page PNG of the
 * page as it was left and the Playwright trace (trace.zip); otherwise the trace is dropped unwritten.
 */
export async function finishCapture(
  context: BrowserContext,
  page: Page,
  keep: boolean,
  tracing: boolean,
  signal: AbortSignal,
): Promise<RawArtifact[]> {
  const artifacts: RawArtifact[] = [];
  if (!keep) {
    if (tracing)
      await bounded(context.tracing.stop(), 'browser tracing.stop', signal, CAPTURE_TIMEOUT_MS).catch(() => {});
    return artifacts;
  }
  // The screenshot (Chromium's work) and the trace's export (this process's) overlap: neither needs
  // the other, the trace holds no DevTools calls, and the run's slot is held until both are done.
  const [screenshot, trace] = await Promise.all([
    takeScreenshot(context, page, signal),
    tracing ? stopTrace(context, signal) : undefined,
  ]);
  if (screenshot) artifacts.push(screenshot);
  if (trace) artifacts.push(trace);
  return artifacts;
}
