/**
 * The minimal dispatchers of minimal.ts, as one function the webhooks bench also runs (its floor,
 * in the same run): undici POSTs to the bench's receiver, `deliveries` of them with `concurrency`
 * in flight, in one of four modes (see minimal.ts). A durable mode's write thread commits every
 * record queued in one event-loop turn in one transaction (WAL, synchronous=NORMAL); a slot is
 * free once the answer is in, and a run ends once every record is committed.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Agent } from 'undici';
import { round } from '../support/stats.ts';

/** Channels per alert, as the webhooks bench fans out. */
export const CHANNELS = 10;
const TICK_US = 10_000;

/** CPU clock ticks (user + system) of a process from /proc. */
function processTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

// The write thread, in plain JavaScript so it needs no loader: one transaction per message.
// `attempts` is the `signed + durable` row. `log` and `alerts` are `signed + kept as the spec
// needs`: each attempt with what the delivery log shows and what a retry needs (its number, status,
// duration and response, and the next attempt's time), indexed by delivery (the replay check and retries),
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

export const FLOOR_MODES = ['plain', 'signed', 'signed + durable', 'signed + kept as the spec needs'] as const;
export type FloorMode = (typeof FLOOR_MODES)[number];
/** What a dispatcher that meets the spec keeps: the webhooks bench's floor. */
export const SPEC_FLOOR: FloorMode = 'signed + kept as the spec needs';

export interface FloorRun {
  /** The receiver's base URL: /ok/… answers 200, /fail/… 500 the first time it sees a webhook-id. */
  base: string;
  /** Where the durable modes' SQLite files go. */
  dir: string;
  receiverPid: number;
  deliveries: number;
  concurrency: number;
  /** Body size in bytes. */
  bytes: number;
  /** Channels (of 10) whose receiver fails each delivery's first attempt. */
  failing?: number;
  retryMs?: number;
}

export interface FloorRow {
  perSecond: number;
  /** CPU of this process (write thread included) per delivery. */
  cpuUs: number;
  receiverUs: number;
}

/** One mode's run: `deliveries` deliveries, each counted once answered 2xx and (durable modes) committed. */
export async function runFloor(mode: FloorMode, run: FloorRun): Promise<FloorRow> {
  const { base, dir, receiverPid, deliveries, concurrency, bytes } = run;
  const failing = run.failing ?? 0;
  const retryMs = run.retryMs ?? 200;
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
