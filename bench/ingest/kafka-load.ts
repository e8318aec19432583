/**
 * Load and measurement for `ingest --kafka-ceiling`: a backlog produced before a consumer starts
 * (its maximum rate), an open-loop producer at a fixed rate (its lag), and both read from the
 * consumer group's committed offsets. Vigil's ingestor and the minimal pipeline commit a batch's
 * offsets only after the ClickHouse insert that holds it returned, so "committed" means
 * "acknowledged insert, rows visible", read the same way for both, with no load on ClickHouse.
 */
import kafkajs, { type Admin, type Kafka, type Producer } from 'kafkajs';
import type { CheckResult } from '#domain';
import { log } from '../support/report.ts';
import { sleep, summarise, type Summary } from '../support/stats.ts';
import { cpuSeconds } from './cost.ts';

const POLL_MS = 100;
const PIECE = 2_000;

/** Committed offset per partition of a group (0 where none yet). */
export async function committed(admin: Admin, groupId: string, topic: string): Promise<Map<number, number>> {
  const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const out = new Map<number, number>();
  for (const { partition, offset } of entry?.partitions ?? []) out.set(partition, Math.max(0, Number(offset)));
  return out;
}

const sum = (offsets: Map<number, number>) => [...offsets.values()].reduce((a, b) => a + b, 0);

const toMessages = (results: CheckResult[]) =>
  results.map((result) => ({ key: result.checkId, value: JSON.stringify(result) }));

/** Produces records as fast as one idempotent producer with 4 sends in flight takes them. */
export async function produceBacklog(
  kafka: Kafka,
  topic: string,
  records: (from: number, count: number) => CheckResult[],
  n: number,
) {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  let next = 0;
  try {
    const sender = async () => {
      while (next < n) {
        const from = next;
        next += PIECE;
        await producer.send({ topic, acks: -1, messages: toMessages(records(from, Math.min(PIECE, n - from))) });
      }
    };
    await Promise.all(Array.from({ length: 4 }, sender));
  } finally {
    await producer.disconnect();
  }
}

export interface Drain {
  rows: number;
  seconds: number;
  rate: number;
  cpuUsPerResult: number;
}

/**
 * Waits until the group committed `total` records, timing from the first poll that saw progress
 * (so process start-up and the group join are left out, for both pipelines alike); the CPU of
 * `pid` (all threads) is read over the same window.
 */
export async function drain(admin: Admin, groupId: string, topic: string, total: number, pid: number): Promise<Drain> {
  let start: { at: number; done: number; cpu: number } | undefined;
  let last = { at: performance.now(), done: 0 };
  for (;;) {
    const done = sum(await committed(admin, groupId, topic));
    const at = performance.now();
    const cpu = cpuSeconds(pid);
    if (done > 0 && !start) start = { at, done, cpu };
    if (done > last.done) last = { at, done };
    if (done >= total && start) {
      const rows = done - start.done;
      if (rows === 0) throw new Error(`${groupId}: all ${total} committed within one poll; raise --n`);
      const seconds = (at - start.at) / 1000;
      return {
        rows,
        seconds,
        rate: Math.round(rows / seconds),
        cpuUsPerResult: Math.round(((cpu - start.cpu) * 1e6) / rows),
      };
    }
    if (at - last.at > 120_000) throw new Error(`${groupId}: no progress for 2 minutes (${done}/${total})`);
    await sleep(POLL_MS);
  }
}

export interface Hold {
  rate: number;
  seconds: number;
  produced: number;
  lag: Summary;
  /** The same lag from when the tick's send started (leaves out the producer falling behind). */
  lagFromSend: Summary;
  /** Kafka's acknowledgement of a tick's send, from its start. */
  produceAck: Summary;
  /** Ticks whose send started more than one tick late: the producer could not keep the rate. */
  lateTicks: number;
  cpuUsPerResult: number;
  /** The bench process's own CPU (producing) per record, µs: it shares the cores. */
  producerCpuUsPerRecord: number;
}

/**
 * The values of records from…from+count-1 as JSON, cheaply: one template per check (from
 * makeResults, so the shape is the same), with the id and startedAt spliced in. The open-loop
 * producer shares two cores with what it measures, so it must cost as little as it can.
 */
export function recordTexts(records: (from: number, count: number) => CheckResult[], checks: number) {
  const templates = records(0, checks).map((result) => {
    const parts = JSON.stringify({ ...result, id: '\u0000', startedAt: '\u0001' }).split(/"\\u000[01]"/);
    return { key: result.checkId, idPrefix: result.id.slice(0, -12), parts };
  });
  return (from: number, count: number, startedAt: string) => {
    const out: { key: string; value: string }[] = new Array(count);
    for (let k = 0; k < count; k++) {
      const i = from + k;
      const t = templates[i % templates.length]!;
      const id = t.idPrefix + i.toString(16).padStart(12, '0');
      out[k] = { key: t.key, value: `${t.parts[0]}"${id}"${t.parts[1]}"${startedAt}"${t.parts[2]}` };
    }
    return out;
  };
}

/**
 * Open loop: every 100 ms a tick of rate/10 records is sent, whether or not earlier sends were
 * acknowledged (a pool of producers, one send each in flight). A tick's lag runs from its
 * scheduled time to the poll that finds every partition it went to committed past its last
 * offset, so it is the lag of the tick's slowest record (±100 ms of polling).
 */
export async function holdRate(
  kafka: Kafka,
  admin: Admin,
  o: { topic: string; groupId: string; rate: number; seconds: number; pid: number },
  texts: ReturnType<typeof recordTexts>,
): Promise<Hold> {
  const perTick = Math.max(1, Math.round(o.rate / 10));
  const ticks = Math.round(o.seconds * 10);
  const partitioner = kafkajs.Partitioners.DefaultPartitioner();
  const metadata = (await admin.fetchTopicMetadata({ topics: [o.topic] })).topics[0]!.partitions;
  const producers: { producer: Producer; busy: boolean }[] = [];
  const pending: { at: number; sentAt: number; last: Map<number, number> | undefined }[] = [];
  const lags: number[] = [];
  const lagsFromSend: number[] = [];
  const acks: number[] = [];
  let late = 0;
  const sends: Promise<void>[] = [];
  const getProducer = async () => {
    const idle = producers.find((entry) => !entry.busy);
    if (idle) return idle;
    const entry = { producer: kafka.producer({ idempotent: true, maxInFlightRequests: 1 }), busy: false };
    await entry.producer.connect();
    producers.push(entry);
    return entry;
  };
  for (let i = 0; i < 8; i++) await getProducer();
  const started = performance.now();
  const startedEpoch = Date.now();
  const cpuBefore = cpuSeconds(o.pid);
  const ownBefore = process.cpuUsage();
  let sending = true;
  const poller = (async () => {
    while (sending || pending.length > 0) {
      const offsets = await committed(admin, o.groupId, o.topic);
      const now = performance.now();
      for (let i = pending.length - 1; i >= 0; i--) {
        const tick = pending[i]!;
        if (!tick.last) continue;
        if ([...tick.last].every(([partition, lastOffset]) => (offsets.get(partition) ?? 0) > lastOffset)) {
          lags.push(now - tick.at);
          lagsFromSend.push(now - tick.sentAt);
          pending.splice(i, 1);
        }
      }
      if (!sending && now - started > (o.seconds + 120) * 1000)
        throw new Error(`${pending.length} ticks not committed 2 minutes after the hold`);
      await sleep(POLL_MS);
    }
  })();
  for (let k = 0; k < ticks; k++) {
    const at = started + k * 100;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    else if (wait < -100) late += 1;
    const startedAt = new Date(startedEpoch + k * 100).toISOString();
    const messages = texts(k * perTick, perTick, startedAt).map((message) => ({
      ...message,
      partition: partitioner({ topic: o.topic, partitionMetadata: metadata, message }),
    }));
    const counts = new Map<number, number>();
    for (const message of messages) counts.set(message.partition, (counts.get(message.partition) ?? 0) + 1);
    const entry = await getProducer();
    entry.busy = true;
    const tick: (typeof pending)[number] = { at, sentAt: performance.now(), last: undefined };
    pending.push(tick);
    sends.push(
      entry.producer
        .send({ topic: o.topic, acks: -1, messages })
        .then((metadata) => {
          acks.push(performance.now() - tick.sentAt);
          tick.last = new Map(
            metadata.map((m) => [m.partition, Number(m.baseOffset) + (counts.get(m.partition) ?? 1) - 1]),
          );
        })
        .finally(() => {
          entry.busy = false;
        }),
    );
  }
  await Promise.all(sends);
  sending = false;
  await poller;
  const cpu = cpuSeconds(o.pid) - cpuBefore;
  const own = process.cpuUsage(ownBefore);
  await Promise.all(producers.map(({ producer }) => producer.disconnect()));
  const produced = ticks * perTick;
  if (late > 0) log(`hold: ${late} of ${ticks} ticks were sent more than 100 ms late`);
  return {
    rate: o.rate,
    seconds: o.seconds,
    produced,
    lag: summarise(lags),
    lagFromSend: summarise(lagsFromSend),
    produceAck: summarise(acks),
    lateTicks: late,
    cpuUsPerResult: Math.round((cpu * 1e6) / produced),
    producerCpuUsPerRecord: Math.round((own.user + own.system) / produced),
  };
}
