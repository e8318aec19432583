import type { Logger } from './logger.ts';

const CLOSED_TARGET = 'Target page, context or browser has been closed';
/** The first frame of the error Playwright's client rejects every pending call with when its connection ends. */
const CONNECTION_CLOSE_FRAME = /^Error: [^\n]*\n\s+at Connection\.close \([^)\n]*playwright-core[/\\]/;

/**
 * Two rejections raised inside playwright-core reach nobody, and both follow a browser closed or
 * lost mid-run:
 * - its server rejects a message for a target closed meanwhile, an aborted run with its trace
 *   starting (message CLOSED_TARGET);
 * - over a remote connection, its client's trace download reads through a stream whose async
 *   `_read` nobody awaits, so when the context or the connection closes under it, that read's
 *   rejection ("Browser closed", or CLOSED_TARGET) is orphaned. The run itself has already ended
 *   through its own bound. The pool drove Chromium through launchServer and connect until
 *   2026-11-27 and now launches it in process; the match stays, as narrow as it was, for any
 *   remote connection that brings the stream back.
 * Nothing else is this: the message or the first frame must say so, and the stack must be Playwright's.
 */
export function isClosedTargetRejection(reason: unknown): boolean {
  if (typeof reason !== 'object' || reason === null) return false;
  const { message, stack } = reason as { message?: unknown; stack?: unknown };
  if (typeof stack !== 'string' || !stack.includes('playwright-core')) return false;
  return message === CLOSED_TARGET || CONNECTION_CLOSE_FRAME.test(stack);
}

/**
 * Keeps Node's rule (an unhandled rejection ends the process) for everything but Playwright's
 * closed-target rejections above, which are logged: a run aborted while its browser was busy, or a
 * browser that died, must not take the runner, and every other run in it, down.
 */
export function tolerateClosedTargetRejections(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    if (!isClosedTargetRejection(reason)) throw reason;
    log.debug({ reason: (reason as Error).message }, 'ignored a rejection of a browser target closed mid-run');
  });
}
