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
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Agent } from 'undici';
import { freePort, spawnTs, waitForHttp } from '../support/processes.ts';
import { printTable } from '../support/report.ts';
import { round } from '../support/stats.ts';

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
const CHANNELS = 10;
const TICK_US = 10_000;

/** CPU clock ticks (user + system) of a process from /proc. */
function processTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

// The write thread, in plain JavaScript so it needs no loader: one transaction per message.
// `attempts` is the `signed + durable` row. `log` and `alerts` are `signed + kept as the spec
// needs`: each attempt with what the delivery log shows and what a retry needs (its number, the
// response's start, the next attempt's time), indexed by delivery (the replay check and retries),
// by channel, outcome and time (the log, filtered by outcome), and by next attempt where one is
// due (the retry queue); and each alert's payload once, so a retry or a replay can render it again.
const writerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS attempts (seq INTEGER PRIMARY KEY, delivery_id TEXT NOT NULL, channel_id TEXT NOT NULL, outcome TEXT NOT NULL, status INTEGER, at INTEGER NOT NULL, duration_ms REAL NOT NULL); CREATE INDEX IF NOT EXISTS attempts_by_delivery ON attempts (delivery_id);');
db.exec('CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, delivery_id TEXT NOT NULL, alert_id TEXT NOT NULL, channel_id TEXT NOT NULL, attempt INTEGER NOT NULL, outcome TEXT NOT NULL, status INTEGER, at INTEGER NOT NULL, duration_ms REAL NOT NULL, response TEXT NOT NULL, next_at INTEGER); CREATE INDEX IF NOT EXISTS log_by_delivery ON log (delivery_id); CREATE INDEX IF NOT EXISTS log_by_channel ON log (channel_id, outcome, at); CREATE INDEX IF NOT EXISTS log_due ON log (next_at) WHERE next_at IS NOT NULL; CREATE TABLE IF NOT EXISTS alerts (alert_id TEXT PRIMARY KEY, payload TEXT NOT NULL);');
const insert = db.prepare('INSERT INTO attempts (delivery_id, channel_id, outcome, status, at, duration_ms) VALUES (?, ?, ?, ?, ?, ?)');
const logInsert = db.prepare('INSERT INTO log (delivery_id, alert_id, channel_id, attempt, outcome, status, at, duration_ms, response, next_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
const dueDone = db.prepare('UPDATE log SET next_at = NULL WHERE delivery_id = ? AND attempt = ?');
const alertInsert = db.prepare('INSERT OR IGNORE INTO alerts (alert_id, payload) VALUES (?, ?)');
const write = db.transaction((rows, alerts) => {
  if (!alerts) { for (let i = 0; i < rows.length; i += 6) insert.run(rows[i], rows[i + 1], rows[i + 2], rows[i + 3], rows[i + 4], rows[i + 5]); return; }
  for (let i = 0; i < alerts.length; i += 2) alertInsert.run(alerts[i], alerts[i + 1]);
  for (let i = 0; i < rows.length; i += 10) {
    logInsert.run(rows[i], rows[i + 1], rows[i + 2], rows[i + 3], rows[i + 4], rows[i + 5], rows[i + 6], rows[i + 7], rows[i + 8], rows[i + 9]);
    if (rows[i + 3] > 1) dueDone.run(rows[i], rows[i + 3] - 1);
  }
});
parentPort.on('message', (message) => { if (message === 'close') { db.close(); parentPort.close(); return; } write(message.rows, message.alerts); parentPort.postMessage(message.id); });
`;

interface Recorder {
  add(deliveryId: string, channel: string, status: number, at: number, durationMs: number): Promise<void>;
  /** The spec's shape: the attempt as the log shows it, and its alert's payload the first time. */
  addKept(
    deliveryId: string,
    alert: { id: string; payload: string | null },
    channel: string,
    attempt: { n: number; status: number; at: number; durationMs: number; response: string; nextAt: number | null },
  ): Promise<void>;
  close(): Promise<void>;
}

/** Group commit to the write thread: every record queued in one event-loop turn goes in one message. */
function createRecorder(path: string): Recorder {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(writerSource, { eval: true, workerData: { path, driver } });
  const waiting = new Map<number, () => void>();
  let rows: (string | number | null)[] = [];
  let alerts: string[] | null = null;
  let resolvers: (() => void)[] = [];
  let nextId = 0;
  let scheduled = false;
  worker.on('message', (id: number) => {
    waiting.get(id)?.();
    waiting.delete(id);
  });
  const flush = () => {
    scheduled = false;
    const id = nextId++;
    const done = resolvers;
    waiting.set(id, () => {
      for (const resolve of done) resolve();
    });
    worker.postMessage({ id, rows, alerts });
    rows = [];
    alerts = null;
    resolvers = [];
  };
  const queued = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return new Promise<void>((resolve) => resolvers.push(resolve));
  };
  const outcome = (status: number) => (status >= 200 && status < 300 ? 'delivered' : 'failed');
  return {
    add(deliveryId, channel, status, at, durationMs) {
      rows.push(deliveryId, channel, outcome(status), status, at, durationMs);
      return queued();
    },
    addKept(deliveryId, alert, channel, attempt) {
      alerts ??= [];
      if (alert.payload !== null) alerts.push(alert.id, alert.payload);
      const { n, status, at, durationMs, response, nextAt } = attempt;
      rows.push(deliveryId, alert.id, channel, n, outcome(status), status, at, durationMs, response, nextAt);
      return queued();
    },
    async close() {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

type Mode = 'plain' | 'signed' | 'signed + durable' | 'signed + kept as the spec needs';

async function runMode(mode: Mode, base: string, dir: string, receiverPid: number) {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const origin = base;
  const keys = Array.from({ length: CHANNELS }, () => randomBytes(24));
  const channels = Array.from({ length: CHANNELS }, (_, c) => `channel-${c}`);
  // One alert's JSON is shared by its channels' deliveries, as Vigil serialises it once per alert.
  const padding = 'x'.repeat(Math.max(0, bytes - 90));
  const plainBody = JSON.stringify({ padding: 'x'.repeat(Math.max(0, bytes - 15)) });
  const plainLength = String(Buffer.byteLength(plainBody));
  const recorder = mode.startsWith('signed + ') ? createRecorder(join(dir, `attempts-${Date.now()}.sqlite`)) : null;
  const kept = mode === 'signed + kept as the spec needs';
  // With --failing, the first channels' receivers fail each delivery's first attempt; its retry
  // is due retryMs later and goes before new deliveries, without holding a slot meanwhile.
  const attempts = new Uint8Array(deliveries);
  const due: number[] = [];
  let retriesWaiting = 0;
  const records: Promise<void>[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const receiverBefore = processTicks(receiverPid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        let i: number;
        if (due.length > 0) i = due.shift()!;
        else if (next < deliveries) i = next++;
        else if (retriesWaiting > 0) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          continue;
        } else break;
        if (mode === 'plain') {
          const response = await agent.request({
            origin,
            path: '/ok/hook',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': plainLength, 'webhook-id': `plain-${i}` },
            body: plainBody,
          });
          await response.body.dump();
          continue;
        }
        const channel = i % CHANNELS;
        const n = ++attempts[i]!;
        const id = `msg_${i.toString(36)}_${channel}`;
        const timestamp = String(Math.floor(Date.now() / 1000));
        const body = `{"alert":{"n":${Math.floor(i / CHANNELS)},"padding":"${padding}"},"channel":"${channels[channel]}"}`;
        const signature = createHmac('sha256', keys[channel]!).update(`${id}.${timestamp}.${body}`).digest('base64');
        const at = Date.now();
        const sent = performance.now();
        const response = await agent.request({
          origin,
          path: channel < failing ? '/fail/hook' : '/ok/hook',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'webhook-id': id,
            'webhook-timestamp': timestamp,
            'webhook-signature': `v1,${signature}`,
          },
          body,
        });
        const answer = await response.body.text();
        const durationMs = performance.now() - sent;
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        // The slot is free once the answer is in, as in Vigil: the record joins the next group
        // commit, and the run ends only once every record is committed.
        let recorded: Promise<void> | undefined;
        if (kept) {
          const alert = Math.floor(i / CHANNELS);
          // The alert's payload goes with its first delivery (its JSON, as Vigil keeps it).
          const payload = channel === 0 && n === 1 ? `{"n":${alert},"padding":"${padding}"}` : null;
          recorded = recorder!.addKept(id, { id: `alert_${alert}`, payload }, channels[channel]!, {
            n,
            status: response.statusCode,
            at,
            durationMs,
            response: answer,
            nextAt: ok ? null : at + retryMs,
          });
        } else if (recorder) recorded = recorder.add(id, channels[channel]!, response.statusCode, at, durationMs);
        if (recorded) records.push(recorded);
        if (!ok) {
          // The retry is scheduled once its record is durable, as the dispatcher schedules it.
          retriesWaiting++;
          void (recorded ?? Promise.resolve()).then(() =>
            setTimeout(() => {
              retriesWaiting--;
              due.push(i);
            }, retryMs),
          );
        }
      }
    }),
  );
  await Promise.all(records);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const receiverTicks = processTicks(receiverPid) - receiverBefore;
  await agent.close();
  await recorder?.close();
  return {
    perSecond: Math.round(deliveries / seconds),
    cpuUs: round((used.user + used.system) / deliveries, 1),
    receiverUs: round((receiverTicks * TICK_US) / deliveries, 1),
  };
}

const port = await freePort();
const receiver = spawnTs('bench/webhooks/receiver.ts', {}, [], [String(port)]);
const dir = mkdtempSync(join(tmpdir(), 'vigil-minimal-dispatcher-'));
try {
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/stats`, receiver);
  // Warm-up: sockets, JIT and the receiver, untimed.
  for (const mode of ['plain', 'signed + durable', 'signed + kept as the spec needs'] as const) {
    await fetch(`${base}/reset`, { method: 'POST' });
    await runMode(mode, base, dir, receiver.pid);
  }
  const modes: Mode[] = ['plain', 'signed', 'signed + durable', 'signed + kept as the spec needs'];
  const results = new Map<Mode, { perSecond: number; cpuUs: number; receiverUs: number }[]>();
  for (let r = 0; r < rounds; r++)
    for (const mode of modes) {
      await fetch(`${base}/reset`, { method: 'POST' });
      const row = await runMode(mode, base, dir, receiver.pid);
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
