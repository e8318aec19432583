import { createLogger, isAppError, tolerateClosedTargetRejections } from '#core';
import { loadApiConfig } from './config.ts';
import { startApi } from './server.ts';

const bootLog = createLogger({ name: 'api' });
tolerateClosedTargetRejections(bootLog);
try {
  const config = loadApiConfig();
  const running = await startApi(config);
  running.lifecycle.handleSignals();
} catch (error) {
  bootLog.fatal(
    { err: isAppError(error) ? { message: error.message, code: error.code } : error },
    'api failed to start',
  );
  process.exit(1);
}
