import { createLogger, isAppError, Lifecycle } from '#core';
import { createPlatform } from '#platform';
import { loadProjectorConfig } from './config.ts';
import { rebuildReadModels } from './rebuild.ts';

// `npm run projections:rebuild [-- --force]`: replays the event store into fresh read models.
const log = createLogger({ name: 'rebuild' });
const lifecycle = new Lifecycle(log);
try {
  const config = loadProjectorConfig();
  const platform = await createPlatform(config, log, lifecycle, { clientId: 'vigil-rebuild' });
  const { events, ms } = await rebuildReadModels(platform, log, { force: process.argv.includes('--force') });
  process.stdout.write(`rebuilt read models up to position ${events} in ${ms} ms\n`);
  await lifecycle.stop();
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'rebuild failed');
  await lifecycle.stop();
  process.exit(1);
}
