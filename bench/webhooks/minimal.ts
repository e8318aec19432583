/**
 * The least a durable webhook dispatcher can cost on this machine (issue 26, webhooks): is 0.5 of
 * plain keep-alive POSTs reachable at all once each delivery is signed and recorded durably?
 * Measured in one run, in turns, against the same receiver process as the webhooks bench:
 * - `plain`: undici POSTs of the same size, as the webhooks bench's ceiling;
 * - `signed`: the same, each body built from a per-alert prefix and signed (Standard Webhooks:
 *   HMAC-SHA256 over id.timestamp.body, base64) with its own webhook-id and timestamp headers;
 * - `signed + durable`: as `signed`, and each answered attempt appended as one row (delivery id,
 *   channel, outcome, status, time, duration) to a SQLite table indexed by delivery, in WAL with
 *   synchronous=NORMAL (the state store's durability), by a write thread in transactions of every
 *   record queued (group commit). A delivery counts once its row is committed.
 * - `signed + kept as the spec needs`: as `signed`, recording what a dispatcher that meets the
 *   spec cannot do without: each attempt with its number, response and next attempt's time,
 *   indexed for the replay check and retries (by delivery), the delivery log (by channel, outcome
 *   and time) and the retry queue (by next attempt, where one is due); and each alert's payload
 *   once, for retries and replays. Still no templates, replay check reads or bookkeeping.
 * The first three keep less than Vigil must: their rates bound any dispatcher that records each
 * attempt. The fourth bounds one that also keeps what the spec asks for.
 * Per row: deliveries/s, ratio to the mean of the `plain` runs around it, CPU µs per delivery of
 * this process (write thread included) and of the receiver per request, and the two-core bound.
 *
 * --failing N: the receivers of N of the 10 channels fail each delivery's first attempt (500), as
 * the webhooks bench's second run does with 2; the retry goes --retry-ms later (plain POSTs never fail).
 *
 *   npx tsx bench/webhooks/minimal.ts [--deliveries 50000] [--concurrency 32] [--bytes 1000] [--rounds 3]
 *                                     [--failing 0] [--retry-ms 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, spawnTs, waitForHttp } from '../support/processes.ts';
import { printTable } from '../support/report.ts';
import { round } from '../support/stats.ts';
import { CHANNELS, FLOOR_MODES, runFloor, type FloorMode, type FloorRun } from './floor.ts';

const { values } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '32' },
    bytes: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    // Channels (of 10) whose receiver fails each delivery's first attempt; 0 for none.
    failing: { type: 'string', default: '0' },
    'retry-ms': { type: 'string', default: '200' },
  },
});
const deliveries = Number(values.deliveries);
const concurrency = Number(values.concurrency);
const bytes = Number(values.bytes);
const rounds = Number(values.rounds);
const failing = Number(values.failing);
const retryMs = Number(values['retry-ms']);
const run: Omit<FloorRun, 'base' | 'dir' | 'receiverPid'> = { deliveries, concurrency, bytes, failing, retryMs };

const port = await freePort();
const receiver = spawnTs('bench/webhooks/receiver.ts', {}, [], [String(port)]);
const dir = mkdtempSync(join(tmpdir(), 'vigil-minimal-dispatcher-'));
try {
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/stats`, receiver);
  // Warm-up: sockets, JIT and the receiver, untimed.
  for (const mode of ['plain', 'signed + durable', 'signed + kept as the spec needs'] as const) {
    await fetch(`${base}/reset`, { method: 'POST' });
    await runFloor(mode, { ...run, base, dir, receiverPid: receiver.pid });
  }
  const modes: readonly FloorMode[] = FLOOR_MODES;
  const results = new Map<FloorMode, { perSecond: number; cpuUs: number; receiverUs: number }[]>();
  for (let r = 0; r < rounds; r++)
    for (const mode of modes) {
      await fetch(`${base}/reset`, { method: 'POST' });
      const row = await runFloor(mode, { ...run, base, dir, receiverPid: receiver.pid });
      const stats = (await (await fetch(`${base}/stats`)).json()) as { ok: number };
      if (stats.ok !== deliveries) throw new Error(`${mode}: the receiver got ${stats.ok} of ${deliveries}`);
      (results.get(mode) ?? results.set(mode, []).get(mode)!).push(row);
    }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const plain = mean(results.get('plain')!.map((row) => row.perSecond));
  printTable(
    `minimal dispatcher: ${deliveries} deliveries × ${rounds} rounds per mode, in turns; ${bytes}-byte bodies; ${concurrency} in flight; ${failing} of ${CHANNELS} channels failing the first attempt; load ${loadavg()[0]!.toFixed(2)} at the end`,
    [
      'mode',
      'deliveries/s (each round)',
      'vs plain (mean)',
      'CPU µs/delivery',
      'receiver µs/request',
      'two-core bound',
    ],
    modes.map((mode) => {
      const rows = results.get(mode)!;
      const cpu = mean(rows.map((row) => row.cpuUs));
      const receiverUs = mean(rows.map((row) => row.receiverUs));
      return [
        mode,
        rows.map((row) => row.perSecond).join(', '),
        round(mean(rows.map((row) => row.perSecond)) / plain, 2),
        rows.map((row) => row.cpuUs).join(', '),
        rows.map((row) => row.receiverUs).join(', '),
        `${Math.round(2_000_000 / (cpu + receiverUs))}/s (${round(2_000_000 / (cpu + receiverUs) / plain, 2)})`,
      ];
    }),
  );
} finally {
  await receiver.stop();
  rmSync(dir, { recursive: true, force: true });
}
