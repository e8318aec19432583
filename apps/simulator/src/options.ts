import { randomBytes } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import { checkTypes, type CheckType } from '#domain';
import type { SimulatorEnv } from './config.ts';
import { defaultLocations } from './plan.ts';

/** The command line: flags first, then the environment (config.ts), then defaults. */

export interface SimulatorOptions {
  apiUrl: string;
  apiKey: string;
  accountId?: string;
  transport: 'http' | 'kafka';
  ingestKey?: string;
  kafkaBrokers: string[];
  topicPrefix: string;
  checks: number;
  /** Results per second; 0 means as fast as the receiver takes them. */
  rate: number;
  /** null: until a backfill is done (a real-time run always has one). */
  durationSeconds: number | null;
  types: CheckType[];
  locations: string[];
  seed: string;
  batchSize: number;
  concurrency: number;
  backfillDays: number | null;
  json: boolean;
  quiet: boolean;
}

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';
const DEFAULT_DURATION_SECONDS = 60;
/** The ingest route's limit per request. */
const MAX_BATCH = 10_000;

const integer = (min: number, max: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max)
    throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
  return parsed;
};

const positive = (max: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || parsed > max)
    throw new InvalidArgumentError(`expected a number above 0 and at most ${max}`);
  return parsed;
};

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

function typeList(value: string): CheckType[] {
  const types = list(value).map((item) => item.toUpperCase().replace(/-/g, '_'));
  const unknown = types.filter((type) => !(checkTypes as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown type ${unknown.join(', ')}; expected some of ${checkTypes.join(', ')}`);
  if (types.length === 0) throw new InvalidArgumentError('expected at least one type');
  return types as CheckType[];
}

function locationList(value: string): string[] {
  const locations = list(value);
  // The result contract bounds runLocation; a bad one would get every result rejected.
  const bad = locations.filter((location) => location.length > 64 || /\p{Cc}/u.test(location));
  if (bad.length > 0)
    throw new InvalidArgumentError(`a location has at most 64 characters and no control characters: ${bad.join(', ')}`);
  if (locations.length === 0) throw new InvalidArgumentError('expected at least one location');
  return [...new Set(locations)];
}

// Environment values are merged in resolveOptions, not given to commander as defaults, which
// --help would print: they include keys.
export function buildProgram(): Command {
  return new Command('simulate')
    .description('Register demo checks and send them realistic results at a target rate, over HTTP or Kafka')
    .option('--checks <n>', 'how many checks to register', integer(1, 10_000), 10)
    .option('--rate <n>', 'results per second (0: as fast as the receiver takes them)', positiveOrZero, 100)
    .option(
      '--duration <seconds>',
      `how long to send (default: ${DEFAULT_DURATION_SECONDS}; a backfill runs until its history is sent)`,
      positive(7 * 86_400),
    )
    .addOption(
      new Option('--transport <transport>', 'send over the HTTP API or straight to Kafka')
        .choices(['http', 'kafka'])
        .default('http'),
    )
    .option('--api-url <url>', `API address (default: VIGIL_API_URL, then ${DEFAULT_API_URL})`)
    .option(
      '--api-key <key>',
      'user or service key (READ_WRITE) that registers the checks (default: VIGIL_API_KEY, then the vigil login)',
    )
    .option(
      '--account-id <id>',
      "account of the checks, sent as X-Service-Account (default: VIGIL_ACCOUNT_ID, else the key's account)",
    )
    .option(
      '--ingest-key <key>',
      'platform ingest key for POST /v1/check-results (default: VIGIL_INGEST_KEY, then VIGIL_ADMIN_KEY)',
    )
    .option('--kafka-brokers <list>', 'Kafka brokers, comma-separated (default: KAFKA_BROKERS)')
    .option(
      '--topic-prefix <prefix>',
      "prefix of the topic names, like the ingestor's (default: KAFKA_TOPIC_PREFIX, else none)",
    )
    .option(
      '--types <list>',
      `check types to register, comma-separated (default: a realistic mix of ${checkTypes.join(', ')})`,
      typeList,
    )
    .addOption(
      new Option('--locations <list>', 'run locations, comma-separated')
        .argParser(locationList)
        .default([...defaultLocations], defaultLocations.join(',')),
    )
    .option('--seed <seed>', 'makes checks and results reproducible (default: random, printed in the summary)')
    .option('--batch-size <n>', 'results per request or Kafka publish', integer(1, MAX_BATCH), 1000)
    .option('--concurrency <n>', 'batches in flight at once', integer(1, 64), 4)
    .option(
      '--backfill-days <n>',
      "send N days of history at each check's frequency instead of real time",
      positive(400),
    )
    .option('--json', 'print the summary as JSON (progress goes to stderr)')
    .option('--quiet', 'no progress lines')
    .allowExcessArguments(false);
}

function positiveOrZero(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > 10_000_000)
    throw new InvalidArgumentError('expected a number from 0 to 10000000');
  return parsed;
}

interface RawOptions {
  checks: number;
  rate: number;
  duration?: number;
  transport: 'http' | 'kafka';
  apiUrl?: string;
  apiKey?: string;
  accountId?: string;
  ingestKey?: string;
  kafkaBrokers?: string;
  topicPrefix?: string;
  types?: CheckType[];
  locations: string[];
  seed?: string;
  batchSize: number;
  concurrency: number;
  backfillDays?: number;
  json?: boolean;
  quiet?: boolean;
}

/** Checks what the flags cannot check one by one; returns a message for the user, or the options. */
export function resolveOptions(flags: RawOptions, env: SimulatorEnv): SimulatorOptions | string {
  const raw = {
    ...flags,
    apiUrl: flags.apiUrl ?? env.apiUrl,
    apiKey: flags.apiKey ?? env.apiKey,
    accountId: flags.accountId ?? env.accountId,
    ingestKey: flags.ingestKey ?? env.ingestKey,
    kafkaBrokers: flags.kafkaBrokers ?? env.kafkaBrokers,
    topicPrefix: flags.topicPrefix ?? env.topicPrefix ?? '',
  };
  if (!raw.apiKey)
    return 'An API key is needed to register the checks: pass --api-key or set VIGIL_API_KEY (vigil simulate passes the logged-in one)';
  const kafkaBrokers = list(raw.kafkaBrokers ?? '');
  if (raw.transport === 'kafka' && kafkaBrokers.length === 0)
    return '--transport kafka needs brokers: pass --kafka-brokers or set KAFKA_BROKERS';
  if (raw.transport === 'http' && !raw.ingestKey)
    return 'Sending over HTTP needs the platform ingest key: pass --ingest-key or set VIGIL_INGEST_KEY';
  if (!/^[A-Za-z0-9._-]*$/.test(raw.topicPrefix))
    return '--topic-prefix takes letters, digits, dot, dash and underscore only';
  const backfillDays = raw.backfillDays ?? null;
  return {
    apiUrl: (raw.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, ''),
    apiKey: raw.apiKey,
    accountId: raw.accountId,
    transport: raw.transport,
    ingestKey: raw.ingestKey,
    kafkaBrokers,
    topicPrefix: raw.topicPrefix,
    checks: raw.checks,
    rate: raw.rate,
    durationSeconds: raw.duration ?? (backfillDays === null ? DEFAULT_DURATION_SECONDS : null),
    types: raw.types ?? [],
    locations: raw.locations,
    seed: raw.seed ?? randomBytes(4).toString('hex'),
    batchSize: raw.batchSize,
    concurrency: raw.concurrency,
    backfillDays,
    json: raw.json === true,
    quiet: raw.quiet === true,
  };
}

/** Parses argv (without node and the script) into options, or a message explaining what is wrong. */
export function parseOptions(
  argv: readonly string[],
  env: SimulatorEnv,
  output?: { writeOut?: (text: string) => void; writeErr?: (text: string) => void },
): SimulatorOptions | string {
  const program = buildProgram().exitOverride();
  if (output) program.configureOutput(output);
  program.parse([...argv], { from: 'user' });
  return resolveOptions(program.opts<RawOptions>(), env);
}
