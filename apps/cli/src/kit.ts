import type { Command } from 'commander';
import { integer } from './input.ts';

/** Every command's --help ends with an example. */
export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample:\n${lines.map((line) => `  $ ${line}`).join('\n')}`);
}

export interface PageOptions {
  limit?: number;
  page?: number;
}

/** --limit and --page for list commands; without them, lists are fetched whole. */
export function pageOptions(command: Command): Command {
  return command
    .option('--limit <n>', 'fetch one page of at most n items (1-100)', integer(1, 100))
    .option('--page <n>', 'the page to fetch, from 1', integer(1, 1_000_000));
}
