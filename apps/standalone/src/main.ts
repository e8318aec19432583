import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, isAppError, tolerateClosedTargetRejections } from '#core';
import { checksMayReachPrivate, deliveriesMayReachPrivate } from '#platform';
import { loadStandaloneConfig } from './config.ts';
import { startBanner } from './local-secrets.ts';
import { startStandalone } from './standalone.ts';

/** The CLI's absolute path, found from this file whether it runs from sources or from dist/. */
function cliPath(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'apps/cli/bin/vigil.js');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

// Everything this process creates in DATA_DIR (databases, WAL files, the encryption key) is for its
// owner only: 0600 files and 0700 directories, whatever the shell's umask.
process.umask(0o077);
const log = createLogger({ name: 'vigil' });
tolerateClosedTargetRejections(log);
try {
  const config = loadStandaloneConfig();
  log.level = config.LOG_LEVEL;
  const running = await startStandalone(config, log);
  running.lifecycle.handleSignals();
  // The banner shows the key once; later starts print it only on a terminal, as a reminder of the URLs.
  if (running.generatedAdminKey || process.stdout.isTTY)
    process.stdout.write(
      startBanner(
        running.url,
        running.generatedAdminKey,
        checksMayReachPrivate(config) && deliveriesMayReachPrivate(config),
        cliPath(),
      ),
    );
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'vigil failed to start');
  process.exit(1);
}
