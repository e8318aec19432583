import type { Browser } from 'playwright-core';
import type { Logger } from '#core';

interface Dispatching {
  dispatch(message: unknown): void;
}

// What Playwright's client throws when a message names an object it has already let go of.
const GONE = /was not bound in the connection|Cannot find object to /;

/**
 * Playwright's in-process connection decodes each message in a `setImmediate` of its own, so a
 * message that names an object the client has already disposed (an event racing the close of a
 * context: microsoft/playwright#22210, seen here once in a full run, in an abort test) throws
 * where no caller can catch it, and would end the runner and every run in it. Such a message
 * concerns a context the pool has already closed: it is logged and dropped. A command whose
 * answer is dropped this way never settles, which every browser call here bounds with a timer
 * of its own (`bounded`). Any other error is thrown as before.
 *
 * Returns false (and logs) when this Playwright has no such connection to guard.
 */
export function guardPlaywrightConnection(browser: Browser, log: Logger): boolean {
  const connection = (browser as unknown as { _connection?: Partial<Dispatching> })._connection;
  if (!connection || typeof connection.dispatch !== 'function') {
    log.warn('playwright: no in-process connection to guard; a late message could end the process');
    return false;
  }
  const dispatch = connection.dispatch.bind(connection);
  connection.dispatch = (message: unknown) => {
    try {
      dispatch(message);
    } catch (error) {
      if (!(error instanceof Error) || !GONE.test(error.message)) throw error;
      log.warn({ reason: error.message }, 'playwright: dropped a message for an object already closed');
    }
  };
  return true;
}
