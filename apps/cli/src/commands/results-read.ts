import { Option, type Command } from 'commander';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { integer } from '../input.ts';
import { example } from '../kit.ts';
import { artifactSchema, downloadArtifacts } from './results-artifacts.ts';

const runSchema = z.looseObject({
  id: z.string(),
  startedAt: z.string(),
  runLocation: z.string(),
  hasFailures: z.boolean(),
  isDegraded: z.boolean(),
  responseTime: z.number(),
  statusCode: z.number().nullable().optional(),
  errorMessage: z.string().nullable().optional(),
  timings: z.record(z.string(), z.number().nullable()).optional(),
  artifacts: z.array(artifactSchema).optional(),
});
type Run = z.infer<typeof runSchema>;
const pageSchema = z.object({ items: z.array(runSchema), nextCursor: z.string().nullable() });

const path = (checkId: string) => `/v1/check-results/${encodeURIComponent(checkId)}`;
const DEFAULT_LIMIT = 20;

/** Runs are stored with the clock's sub-millisecond noise (9.988317999999708): people read 10 ms. */
export const roundMs = (value: number | null) => (value === null ? null : Math.round(value));
const outcome = (run: Run) => (run.hasFailures ? 'failed' : run.isDegraded ? 'degraded' : 'passed');

/** The same run with every time in whole milliseconds, for tables and for --json alike. */
function rounded(run: Run): Run {
  const timings =
    run.timings && Object.fromEntries(Object.entries(run.timings).map(([phase, ms]) => [phase, roundMs(ms)]));
  return { ...run, responseTime: Math.round(run.responseTime), ...(timings ? { timings } : {}) };
}

interface LsOptions {
  limit: number;
  page: number;
  from?: string;
  to?: string;
  location?: string;
  status?: 'passed' | 'failed';
}

/** `results ls` and `results get`: the runs GET /v1/check-results keeps, newest first. */
export function registerResultReads(results: Command): void {
  const ls = results
    .command('ls')
    .description('list the runs of a check, newest first, a page at a time')
    .argument('<checkId>', 'check id')
    .option('--limit <n>', 'runs per page (1-100)', integer(1, 100), DEFAULT_LIMIT)
    .option('--page <n>', 'the page, from 1', integer(1, 1_000_000), 1)
    .option('--from <time>', 'runs started at or after: ISO 8601 or Unix seconds')
    .option('--to <time>', 'runs started before: ISO 8601 or Unix seconds')
    .option('--location <location>', 'runs from this location only')
    .addOption(new Option('--status <status>', 'failed runs only, or the others').choices(['passed', 'failed']))
    .action(async (checkId: string, options: LsOptions, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.client().get(pageSchema, path(checkId), {
        limit: options.limit,
        page: options.page,
        from: options.from,
        to: options.to,
        location: options.location,
        hasFailures: options.status === undefined ? undefined : String(options.status === 'failed'),
      });
      const runs = answer.items.map(rounded);
      ctx.out.result(runs, () => {
        ctx.out.table(runs, [
          { header: 'ID', value: (r) => r.id },
          { header: 'STARTED', value: (r) => r.startedAt },
          { header: 'LOCATION', value: (r) => r.runLocation },
          { header: 'RESULT', value: outcome },
          { header: 'TIME', value: (r) => `${r.responseTime} ms` },
          { header: 'CODE', value: (r) => r.statusCode },
          { header: 'ERROR', value: (r) => r.errorMessage },
        ]);
      });
      // The route sends no total: a full page may have a next one. On stderr, so stdout stays the list.
      if (runs.length === options.limit && !ctx.out.json) ctx.out.info(`next: --page ${options.page + 1}`);
    });
  example(
    ls,
    'vigil results ls 0b8c…',
    'vigil results ls 0b8c… --status failed --from 2026-01-01T00:00:00Z --location eu-west-1 --limit 50 --page 2',
  );

  const get = results
    .command('get')
    .description('show one run: outcome, timings, assertions, error')
    .argument('<checkId>', 'check id')
    .argument('<resultId>', 'result id (see vigil results ls)')
    .option('--artifacts <dir>', "download the run's screenshot, trace and response bodies into this directory")
    .action(async (checkId: string, resultId: string, options: { artifacts?: string }, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.client();
      const runPath = `${path(checkId)}/${encodeURIComponent(resultId)}`;
      const run = rounded(await client.get(runSchema, runPath));
      if (options.artifacts !== undefined) {
        const artifacts = run.artifacts ?? [];
        if (artifacts.length === 0) ctx.out.info('this run kept no artifacts');
        await downloadArtifacts(client, runPath, artifacts, options.artifacts, (line) => ctx.out.info(line));
      }
      ctx.out.result(run, () =>
        ctx.out.record([
          ['result', outcome(run)],
          ...Object.entries(run).map(([key, value]): [string, unknown] => [
            key,
            key === 'responseTime' ? `${String(value)} ms` : value,
          ]),
        ]),
      );
    });
  example(
    get,
    'vigil results get 0b8c… 7d21…',
    'vigil results get 0b8c… 7d21… --get responseTime',
    'vigil results get 0b8c… 7d21… --artifacts ./evidence',
  );
}
