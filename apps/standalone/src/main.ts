import { createLogger, isAppError } from '#core';
import { loadStandaloneConfig } from './config.ts';
import { startStandalone } from './standalone.ts';

const log = createLogger({ name: 'vigil' });
try {
  const config = loadStandaloneConfig();
  log.level = config.LOG_LEVEL;
  const running = await startStandalone(config, log);
  running.lifecycle.handleSignals();
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'vigil failed to start');
  process.exit(1);
}
