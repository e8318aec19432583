import { createReadStream, statSync } from 'node:fs';
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { integer } from '../input.ts';
import { example } from '../kit.ts';
import { sendBatches, type Rejection } from '../ndjson.ts';
import { registerResultReads } from './results-read.ts';

const SHOWN_REJECTIONS = 20;

export function registerResults(program: Command): void {
  const results = program
    .command('results')
    .description(
      'check results: sent with VIGIL_INGEST_KEY (any account), else your login or VIGIL_API_KEY (your own checks), else VIGIL_ADMIN_KEY; read with your login',
    );
  example(results, 'vigil results send results.ndjson', 'vigil results ls 0b8c… --status failed');
  registerResultReads(results);

  const send = results
    .command('send')
    .description(
      'send check results from an NDJSON file (one result per line) in batches; a progress bar shows on a terminal. A result without `id` gets a random UUID, one without `startedAt` the current time, and with an account key `accountId` may be left out',
    )
    .argument('<file>', 'the NDJSON file, or - for standard input')
    .option('--batch-size <n>', 'results per request (1-10000)', integer(1, 10_000), 1000)
    .action(async (file: string, options: { batchSize: number }, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.ingestClient();
      let total: number | undefined;
      if (file !== '-') {
        try {
          total = statSync(file).size;
        } catch (error) {
          throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
        }
      }
      const input = file === '-' ? process.stdin : createReadStream(file);
      const progress = process.stderr.isTTY && !ctx.out.json ? await progressBar(total) : undefined;

      let summary;
      try {
        summary = await sendBatches(client, input, options.batchSize, (state) =>
          progress?.update(state.bytes, { sent: state.sent, rejected: state.rejected }),
        );
      } finally {
        progress?.stop();
      }
      const { read, sent, accepted, rejected, batches } = summary;
      ctx.out.result({ read, sent, accepted, rejected, batches }, () => {
        ctx.out.print(
          `Read ${read} result${read === 1 ? '' : 's'}: ${accepted} accepted, ${rejected.length} rejected (${batches} request${batches === 1 ? '' : 's'})`,
        );
        rejected
          .slice(0, SHOWN_REJECTIONS)
          .forEach((rejection: Rejection) => ctx.out.warn(`line ${rejection.line}: ${rejection.message}`));
        if (rejected.length > SHOWN_REJECTIONS)
          ctx.out.warn(`… and ${rejected.length - SHOWN_REJECTIONS} more (--json lists them all)`);
      });
      if (rejected.length > 0) throw new CliError(`${rejected.length} of ${read} results were rejected`);
    });
  example(
    send,
    'vigil results send results.ndjson',
    'gunzip -c results.ndjson.gz | vigil results send - --batch-size 5000',
  );
}

async function progressBar(totalBytes: number | undefined) {
  // Loaded only here: the other commands never pay for it at start-up.
  const { SingleBar, Presets } = await import('cli-progress');
  const format =
    totalBytes === undefined
      ? 'Sending {sent} results, {rejected} rejected'
      : 'Sending |{bar}| {percentage}% | {sent} results, {rejected} rejected';
  const bar = new SingleBar(
    { stream: process.stderr, format, hideCursor: true, etaBuffer: 50 },
    Presets.shades_classic,
  );
  bar.start(totalBytes ?? 0, 0, { sent: 0, rejected: 0 });
  return bar;
}
