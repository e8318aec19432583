import type { Logger } from './logger.ts';

const CLOSED_TARGET = 'Target page, context or browser has been closed';

/**
 * Playwright's in-process server (the browser pool drives Chromium through launchServer) can
 * reject a message for a target the pool closed mid-run, an aborted run with its trace starting,
 * with nothing left to observe it. Only that rejection, raised inside playwright-core, is this.
 */
export function isClosedTargetRejection(reason: unknown): boolean {
  if (typeof reason !== 'object' || reason === null) return false;
  const { message, stack } = reason as { message?: unknown; stack?: unknown };
  return message === CLOSED_TARGET && typeof stack === 'string' && stack.includes('playwright-core');
}

/**
 * Keeps Node's rule (an unhandled rejection ends the process) for everything but Playwright's
 * closed-target rejection above, which is logged: a run aborted while its browser was busy must
 * not take the runner, and every other run in it, down.
 */
export function tolerateClosedTargetRejections(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    if (!isClosedTargetRejection(reason)) throw reason;
    log.debug({ reason: CLOSED_TARGET }, 'ignored a rejection of a browser target closed mid-run');
  });
}
