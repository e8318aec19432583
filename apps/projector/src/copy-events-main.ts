import { Command } from 'commander';
import { createLogger, isAppError } from '#core';
import { copyEvents, openEventStore } from './copy-events.ts';

// `npm run events:copy -- --from <url> --to <url>`: moves a history between event stores.
const program = new Command('events:copy')
  .description('Copy every stream, in global order, from one event store to another (empty) one.')
  .requiredOption('--from <url>', 'source: sqlite:<file>, postgres://…?schema=<name> or esdb://…')
  .requiredOption('--to <url>', 'target, empty: sqlite:<file>, postgres://…?schema=<name> or esdb://…')
  .option('--log-level <level>', 'pino level', 'info')
  .addHelpText(
    'after',
    '\nExample:\n  npm run events:copy -- --from sqlite:data/events.sqlite --to "postgres://vigil@127.0.0.1:5432/vigil?schema=vigil"',
  )
  .parse();
const options = program.opts<{ from: string; to: string; logLevel: string }>();
const log = createLogger({ name: 'events-copy', level: options.logLevel });

const from = await openEventStore(options.from, log).catch(fail);
const to = await openEventStore(options.to, log).catch(async (error: unknown) => {
  await from.close();
  return fail(error);
});
try {
  const outcome = await copyEvents(from, to, { log });
  process.stdout.write(
    `copied ${outcome.events} events in ${outcome.streams} streams; the target is a new event store ` +
      `(${await to.identity()}): rebuild read models from it with npm run projections:rebuild\n`,
  );
  await Promise.all([from.close(), to.close()]);
} catch (error) {
  await Promise.all([from.close(), to.close()]);
  fail(error);
}

function fail(error: unknown): never {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'copy failed');
  process.exit(1);
}
