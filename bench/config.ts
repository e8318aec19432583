/**
 * The only module under bench/ that reads the environment. Defaults match scripts/services.sh.
 */
export const benchConfig = {
  clickhouseUrl: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  kafkaBrokers: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  /** The throwaway PostgreSQL cluster of bench/support/postgres.sh. */
  postgresPort: Number(process.env.BENCH_POSTGRES_PORT ?? 55432),
  /** The event-store PostgreSQL of scripts/services.sh (`services.sh env` prints it as POSTGRES_URL). */
  eventStorePostgresUrl: process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:54329/vigil',
  /** Debian's Chromium, as scripts/services.sh checks it. */
  chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  /** The headless shell BROWSER checks prefer (empty: none), as the runner's config reads it. */
  chromiumHeadlessShellPath: process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? '/usr/lib/chromium/chromium-headless-shell',
  /** The loopback s3proxy of scripts/services.sh (`services.sh env` prints these). */
  s3Endpoint: process.env.S3_ENDPOINT ?? 'http://127.0.0.1:9327',
  s3AccessKeyId: process.env.S3_ACCESS_KEY_ID ?? 'vigil',
  s3SecretAccessKey: process.env.S3_SECRET_ACCESS_KEY ?? 'vigil-local-secret',
  /** What child processes inherit: nothing but these. */
  childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
};
