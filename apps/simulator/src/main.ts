import { CommanderError } from 'commander';
import { readEnv } from './config.ts';
import { parseOptions } from './options.ts';
import { simulate } from './run.ts';
import { formatSummary, succeeded } from './summary.ts';

/**
 * npm run simulate -- --checks 50 --rate 500 --duration 60 (also started by `vigil simulate`).
 * Exit codes: 0 every result accepted, 1 some failed or were rejected (or the run could not
 * start), 2 bad usage.
 */

const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  process.stderr.write('Stopping: finishing the batches in flight (Ctrl-C again to quit at once)\n');
  controller.abort();
});

async function main(argv: string[]): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv, readEnv());
  } catch (error) {
    // Commander has printed the problem (or the help) already.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  if (typeof options === 'string') {
    process.stderr.write(`error: ${options}\n`);
    return 2;
  }
  const log = options.quiet ? () => undefined : (line: string) => process.stderr.write(`${line}\n`);
  try {
    const summary = await simulate(options, { log, signal: controller.signal });
    process.stdout.write(`${options.json ? JSON.stringify(summary, null, 2) : formatSummary(summary)}\n`);
    return succeeded(summary) ? 0 : 1;
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
