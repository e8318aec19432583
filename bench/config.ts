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
  /** What child processes inherit: nothing but these. */
  childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
};
