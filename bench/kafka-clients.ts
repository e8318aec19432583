/**
 * Node Kafka clients side by side: kafkajs (the design card's, and Vigil's bus) against
 * @platformatic/kafka, on the same broker, topic layout and records (v1 check results as JSON,
 * key = checkId). Each round gives each client a fresh topic:
 * - produce: N records in batches through `--in-flight` idempotent producers (acks = all), each
 *   with one send outstanding, as libs/bus's producer pool publishes. One producer per send in
 *   flight is also what @platformatic/kafka 1.x needs: concurrent sends on one of its idempotent
 *   producers are acknowledged but silently dropped (its issue #326, fixed in 2.x, which needs
 *   Node 22). The records in the topic are counted after each round, so a loss fails the bench;
 * - consume: a fresh consumer group reads the topic from the beginning; timed from the first
 *   record to the N-th, so the group join (seconds, and the same for any client) is left out.
 * Reported: records/s and CPU µs per record of this process (the broker's CPU is not counted),
 * medians over the rounds, and @platformatic/kafka's figures as a ratio of kafkajs's.
 *
 *   npm run bench -- kafka-clients [--n 200000] [--batch 5000] [--in-flight 4] [--partitions 12] [--rounds 3]
 */
import { parseArgs } from 'node:util';
import kafkajs from 'kafkajs';
import { benchConfig } from './config.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { makeResults, randomHex8, type Shape } from './support/results.ts';
import { runSuffix } from './support/services.ts';
import { ratio, round } from './support/stats.ts';
import { importTool } from '../scripts/npm-tools.ts';

/** The part of @platformatic/kafka this bench drives; the client is installed on first use, not by `npm install`. */
interface PlatformaticKafka {
  Producer: new (options: Record<string, unknown>) => {
    send(request: { messages: { topic: string; key?: string; value: string }[] }): Promise<unknown>;
    close(): Promise<void>;
  };
  Consumer: new (options: Record<string, unknown>) => {
    consume(options: {
      topics: string[];
      mode: string;
      autocommit: boolean;
    }): Promise<AsyncIterable<{ value: string }> & { close(): Promise<void> }>;
    close(force?: boolean): Promise<void>;
  };
  stringSerializers: unknown;
  stringDeserializers: unknown;
}

interface Options {
  n: number;
  batch: number;
  inFlight: number;
  partitions: number;
}

interface Measured {
  perSecond: number;
  cpuUsPerRecord: number;
}

type Batch = { key: string; value: string }[];

const brokers = benchConfig.kafkaBrokers.split(',');

function batches(o: Options): Batch[] {
  const shape: Shape = {
    accountId: '00000000-0000-4000-8000-000000000001',
    checkIds: Array.from({ length: 100 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
    idPrefix: randomHex8(),
    startedMs: (i) => Date.UTC(2026, 10, 1) + i * 1000,
  };
  const out: Batch[] = [];
  for (let from = 0; from < o.n; from += o.batch) {
    const count = Math.min(o.batch, o.n - from);
    out.push(makeResults(shape, from, count).map((r) => ({ key: r.checkId, value: JSON.stringify(r) })));
  }
  return out;
}

/** Runs work, returning records/s over its wall time and this process's CPU µs per record. */
async function measure(records: number, work: () => Promise<void>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    perSecond: Math.round(records / seconds),
    cpuUsPerRecord: round((used.user + used.system) / records, 2),
  };
}

/** Each sender sends one batch at a time; together they drain the list. */
async function inFlight(all: Batch[], senders: ((batch: Batch) => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    senders.map(async (send) => {
      while (next < all.length) await send(all[next++]!);
    }),
  );
}

async function recordsIn(topic: string): Promise<number> {
  const admin = new kafkajs.Kafka({ clientId: 'bench-admin', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, partition) => sum + Number(partition.high) - Number(partition.low), 0);
  } finally {
    await admin.disconnect();
  }
}

async function createTopic(name: string, partitions: number): Promise<void> {
  const admin = new kafkajs.Kafka({ clientId: 'bench-admin', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

async function deleteTopics(names: string[]): Promise<void> {
  const admin = new kafkajs.Kafka({ clientId: 'bench-admin', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: names }).catch(() => undefined);
  await admin.disconnect();
}

async function kafkajsRound(o: Options, topic: string, data: Batch[]): Promise<[Measured, Measured]> {
  const kafka = new kafkajs.Kafka({ clientId: 'bench-kafkajs', brokers, logLevel: kafkajs.logLevel.NOTHING });
  const producers = Array.from({ length: o.inFlight }, () =>
    kafka.producer({ idempotent: true, maxInFlightRequests: 1 }),
  );
  await Promise.all(producers.map((p) => p.connect()));
  const produced = await measure(o.n, () =>
    inFlight(
      data,
      producers.map((p) => (messages) => p.send({ topic, acks: -1, messages })),
    ),
  );
  await Promise.all(producers.map((p) => p.disconnect()));
  await expectAll(topic, o.n);

  const consumer = kafka.consumer({
    groupId: `${topic}-g`,
    maxBytesPerPartition: 8 * 1024 * 1024,
    maxBytes: 32 * 1024 * 1024,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const consumed = await new Promise<Measured>((resolve, reject) => {
    let seen = 0;
    let cpu: NodeJS.CpuUsage | undefined;
    let started = 0;
    consumer
      .run({
        partitionsConsumedConcurrently: 3,
        eachBatch: async ({ batch }) => {
          if (cpu === undefined) [cpu, started] = [process.cpuUsage(), performance.now()];
          for (const message of batch.messages) JSON.parse(message.value!.toString());
          seen += batch.messages.length;
          if (seen >= o.n) {
            const used = process.cpuUsage(cpu);
            resolve({
              perSecond: Math.round(o.n / ((performance.now() - started) / 1000)),
              cpuUsPerRecord: round((used.user + used.system) / o.n, 2),
            });
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return [produced, consumed];
}

async function platformaticRound(o: Options, topic: string, data: Batch[]): Promise<[Measured, Measured]> {
  const { Consumer, Producer, stringDeserializers, stringSerializers } =
    await importTool<PlatformaticKafka>('@platformatic/kafka');
  const producers = Array.from(
    { length: o.inFlight },
    () =>
      new Producer({
        clientId: 'bench-platformatic',
        bootstrapBrokers: brokers,
        serializers: stringSerializers,
        idempotent: true,
        acks: -1,
      }),
  );
  const produced = await measure(o.n, () =>
    inFlight(
      data,
      producers.map((p) => (batch) => p.send({ messages: batch.map((m) => ({ topic, ...m })) })),
    ),
  );
  await Promise.all(producers.map((p) => p.close()));
  await expectAll(topic, o.n);

  const consumer = new Consumer({
    clientId: 'bench-platformatic',
    groupId: `${topic}-g`,
    bootstrapBrokers: brokers,
    deserializers: stringDeserializers,
    maxBytesPerPartition: 8 * 1024 * 1024,
    maxBytes: 32 * 1024 * 1024,
  });
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: true });
  let seen = 0;
  let cpu: NodeJS.CpuUsage | undefined;
  let started = 0;
  let consumed: Measured | undefined;
  for await (const message of stream) {
    if (cpu === undefined) [cpu, started] = [process.cpuUsage(), performance.now()];
    JSON.parse(message.value);
    if (++seen >= o.n) {
      const used = process.cpuUsage(cpu);
      consumed = {
        perSecond: Math.round(o.n / ((performance.now() - started) / 1000)),
        cpuUsPerRecord: round((used.user + used.system) / o.n, 2),
      };
      break;
    }
  }
  await stream.close();
  await consumer.close(true);
  if (!consumed) throw new Error(`platformatic consumer ended after ${seen} of ${o.n} records`);
  return [produced, consumed];
}

async function expectAll(topic: string, n: number): Promise<void> {
  const stored = await recordsIn(topic);
  if (stored !== n) throw new Error(`${topic}: ${n} records acknowledged, ${stored} in the topic`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      n: { type: 'string', default: '200000' },
      batch: { type: 'string', default: '5000' },
      'in-flight': { type: 'string', default: '4' },
      partitions: { type: 'string', default: '12' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const o: Options = {
    n: Number(values.n),
    batch: Number(values.batch),
    inFlight: Number(values['in-flight']),
    partitions: Number(values.partitions),
  };
  printMachine();
  const data = batches(o);
  const suffix = runSuffix();
  const clients = { kafkajs: kafkajsRound, '@platformatic/kafka': platformaticRound };
  const runs: Record<string, { produce: Measured[]; consume: Measured[] }> = {};
  const made: string[] = [];
  try {
    for (let r = 0; r < Number(values.rounds); r++) {
      // Alternate the order so neither client always runs on the warmer (or busier) broker.
      const order = r % 2 === 0 ? Object.entries(clients) : Object.entries(clients).reverse();
      for (const [name, round_] of order) {
        const topic = `bench-clients-${suffix}-${r}-${name.replace(/\W/g, '')}`;
        await createTopic(topic, o.partitions);
        made.push(topic);
        const [produced, consumed] = await round_(o, topic, data);
        log(`round ${r + 1} ${name}: produce ${produced.perSecond}/s, consume ${consumed.perSecond}/s`);
        (runs[name] ??= { produce: [], consume: [] }).produce.push(produced);
        runs[name].consume.push(consumed);
      }
    }
  } finally {
    await deleteTopics(made);
  }
  const summary = (name: string, stage: 'produce' | 'consume') => ({
    perSecond: median(runs[name]![stage].map((m) => m.perSecond)),
    cpuUsPerRecord: median(runs[name]![stage].map((m) => m.cpuUsPerRecord)),
  });
  const rows = (['produce', 'consume'] as const).map((stage) => {
    const a = summary('kafkajs', stage);
    const b = summary('@platformatic/kafka', stage);
    return [stage, a.perSecond, a.cpuUsPerRecord, b.perSecond, b.cpuUsPerRecord, ratio(b.perSecond, a.perSecond)];
  });
  printTable(
    `Kafka clients: ${o.n} records, batches of ${o.batch}, ${o.inFlight} in flight, ${o.partitions} partitions, medians of ${values.rounds} rounds`,
    [
      'stage',
      'kafkajs rec/s',
      'kafkajs CPU µs/rec',
      'platformatic rec/s',
      'platformatic CPU µs/rec',
      'platformatic ÷ kafkajs',
    ],
    rows,
  );
  writeResults('kafka-clients', { options: o, runs });
}
