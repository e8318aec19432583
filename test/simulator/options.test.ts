import { describe, expect, it } from 'vitest';
import { readEnv } from '../../apps/simulator/src/config.ts';
import { parseOptions, type SimulatorOptions } from '../../apps/simulator/src/options.ts';

const env = readEnv({
  VIGIL_API_URL: 'http://api.test:3000/',
  VIGIL_API_KEY: 'vk_user',
  VIGIL_ACCOUNT_ID: 'acc-1',
  VIGIL_INGEST_KEY: 'ingest',
});
const quiet = { writeOut: () => undefined, writeErr: () => undefined };

function parse(argv: string[], from = env): SimulatorOptions {
  const options = parseOptions(argv, from, quiet);
  if (typeof options === 'string') throw new Error(options);
  return options;
}

describe('simulator options', () => {
  it('takes the credentials from the environment the CLI passes, and has defaults for the rest', () => {
    const options = parse([]);
    expect(options).toMatchObject({
      apiUrl: 'http://api.test:3000',
      apiKey: 'vk_user',
      accountId: 'acc-1',
      ingestKey: 'ingest',
      transport: 'http',
      checks: 10,
      rate: 100,
      durationSeconds: 60,
      types: [],
      locations: ['eu-west-1', 'us-east-1', 'ap-southeast-1'],
      batchSize: 1000,
      backfillDays: null,
      json: false,
    });
    expect(options.seed).toMatch(/^[0-9a-f]{8}$/);
  });

  it('reads every flag, and flags beat the environment', () => {
    const options = parse([
      '--checks',
      '50',
      '--rate',
      '500',
      '--duration',
      '2.5',
      '--transport',
      'kafka',
      '--kafka-brokers',
      'k1:9092, k2:9092',
      '--topic-prefix',
      'demo.',
      '--types',
      'api,Browser,multi-step',
      '--locations',
      'eu-west-1,us-east-1',
      '--seed',
      'demo',
      '--batch-size',
      '250',
      '--concurrency',
      '2',
      '--ingest-key',
      'other',
      '--api-url',
      'http://x:1',
      '--json',
    ]);
    expect(options).toMatchObject({
      checks: 50,
      rate: 500,
      durationSeconds: 2.5,
      transport: 'kafka',
      kafkaBrokers: ['k1:9092', 'k2:9092'],
      topicPrefix: 'demo.',
      types: ['API', 'BROWSER', 'MULTI_STEP'],
      locations: ['eu-west-1', 'us-east-1'],
      seed: 'demo',
      batchSize: 250,
      concurrency: 2,
      ingestKey: 'other',
      apiUrl: 'http://x:1',
      json: true,
    });
  });

  it('runs a backfill until its history is sent unless a duration is given', () => {
    expect(parse(['--backfill-days', '7'])).toMatchObject({ backfillDays: 7, durationSeconds: null });
    expect(parse(['--backfill-days', '7', '--duration', '30'])).toMatchObject({ backfillDays: 7, durationSeconds: 30 });
  });

  it('falls back to the admin key for ingestion and to KAFKA_ variables for Kafka', () => {
    const options = parse(
      ['--transport', 'kafka'],
      readEnv({ VIGIL_API_KEY: 'k', VIGIL_ADMIN_KEY: 'admin', KAFKA_BROKERS: 'b:9092', KAFKA_TOPIC_PREFIX: 'ci-' }),
    );
    expect(options).toMatchObject({
      ingestKey: 'admin',
      kafkaBrokers: ['b:9092'],
      topicPrefix: 'ci-',
      apiUrl: 'http://127.0.0.1:3000',
    });
  });

  it('rejects bad values with a message', () => {
    expect(() => parse(['--types', 'API,SMTP'])).toThrow(/SMTP/);
    expect(() => parse(['--rate', '-1'])).toThrow();
    expect(() => parse(['--batch-size', '20000'])).toThrow();
    expect(() => parse(['--transport', 'carrier-pigeon'])).toThrow();
    expect(parseOptions([], readEnv({ VIGIL_INGEST_KEY: 'i' }), quiet)).toMatch(/API key/);
    // An account key sends results for its own checks: over HTTP it needs no platform ingest key.
    expect(parseOptions([], readEnv({ VIGIL_API_KEY: 'k' }), quiet)).toMatchObject({ apiKey: 'k', ingestKey: 'k' });
    expect(parseOptions(['--transport', 'kafka'], readEnv({ VIGIL_API_KEY: 'k' }), quiet)).toMatch(/brokers/);
  });

  it('never prints a key from the environment in its help', () => {
    let help = '';
    expect(() =>
      parseOptions(['--help'], env, { writeOut: (text) => (help += text), writeErr: () => undefined }),
    ).toThrow();
    expect(help).toMatch(/--ingest-key/);
    expect(help).not.toMatch(/vk_user|ingest"/);
  });
});
