/**
 * The capacity model behind docs/capacity.md: processes and sizes for a workload, from CPU per unit
 * of work that the benches measure. Pure arithmetic, so the page's tables can be printed again
 * (`npm run bench -- capacity`) whenever a bench moves a unit cost.
 */

/** CPU milliseconds per unit of work, each from a bench (see costs.ts for where each came from). */
export interface UnitCosts {
  /** Runner process, one run of an API check on the Redis state store. */
  runnerMsPerRun: number;
  /** Redis, per run: the claim and the batched writes of one run (one location's due-queue). */
  redisMsPerRun: number;
  /** Ingestor process, per result taken from Kafka and inserted. */
  ingestorMsPerResult: number;
  /** Kafka broker, per result produced and consumed. */
  kafkaMsPerResult: number;
  /** ClickHouse server, per result inserted (merges included over the bench's span). */
  clickhouseMsPerResult: number;
  /** ClickHouse server, per analytics query the API's cache misses (one check, 30 days, 3 metrics). */
  clickhouseMsPerQuery: number;
  /** API process, per analytics request answered from its cache, and per one it computes. */
  apiMsPerCachedRead: number;
  apiMsPerComputedRead: number;
  /** Dispatcher process, per webhook delivery. */
  dispatcherMsPerDelivery: number;
  /** ClickHouse, compressed bytes on disk per stored result. */
  bytesPerResult: number;
  /** Redis memory per scheduled check and location (slot, queue entry, group, counters). */
  redisBytesPerCheck: number;
}

export interface Workload {
  checks: number;
  frequencySeconds: number;
  locationsPerCheck: number;
  /** Private and public locations the checks spread over (each has a due-queue of its own). */
  locations: number;
  readers: number;
  checksPerDashboard: number;
  pollSeconds: number;
  /** Share of analytics requests the API answers from its cache (the readers bench measures it). */
  cacheHitRate: number;
  alertsPerCheckPerDay: number;
  channelsPerAlert: number;
  retentionDays: number;
}

/** A Node process is one event loop: plan each for this share of a core, leaving room for bursts and GC. */
export const PROCESS_BUDGET = 0.6;
/** Redis runs commands on one thread: the same budget holds for each instance. */
export const REDIS_BUDGET = 0.6;

export interface Plan {
  runsPerSecond: number;
  resultsPerSecond: number;
  readsPerSecond: number;
  deliveriesPerSecond: number;
  runners: number;
  ingestors: number;
  partitions: number;
  apis: number;
  dispatchers: number;
  redisCores: number;
  /** Redis instances: a location's due-queue is one sorted set, so queues split by location only. */
  redisInstances: number;
  /** Share of one Redis core the busiest location's queue needs; above REDIS_BUDGET it does not fit. */
  busiestQueueCore: number;
  kafkaCores: number;
  clickhouseCores: number;
  clickhouseDiskGiB: number;
  redisMemoryMiB: number;
  /** Every role's load as a share of what one process or instance of it may carry, highest first. */
  pressure: { role: string; load: number }[];
  firstBottleneck: string;
}

const up = (value: number) => Math.max(1, Math.ceil(value - 1e-9));

export function planCapacity(costs: UnitCosts, work: Workload): Plan {
  const runsPerSecond = (work.checks * work.locationsPerCheck) / work.frequencySeconds;
  const resultsPerSecond = runsPerSecond;
  const readsPerSecond = (work.readers * work.checksPerDashboard) / work.pollSeconds;
  const computed = readsPerSecond * (1 - work.cacheHitRate);
  const deliveriesPerSecond = (work.checks * work.alertsPerCheckPerDay * work.channelsPerAlert) / 86_400;

  const cores = {
    runner: (runsPerSecond * costs.runnerMsPerRun) / 1000,
    redis: (runsPerSecond * costs.redisMsPerRun) / 1000,
    ingestor: (resultsPerSecond * costs.ingestorMsPerResult) / 1000,
    kafka: (resultsPerSecond * costs.kafkaMsPerResult) / 1000,
    clickhouse: (resultsPerSecond * costs.clickhouseMsPerResult + computed * costs.clickhouseMsPerQuery) / 1000,
    api: ((readsPerSecond - computed) * costs.apiMsPerCachedRead + computed * costs.apiMsPerComputedRead) / 1000,
    dispatcher: (deliveriesPerSecond * costs.dispatcherMsPerDelivery) / 1000,
  };
  const runners = up(cores.runner / PROCESS_BUDGET);
  const ingestors = up(cores.ingestor / PROCESS_BUDGET);
  // Twice the ingestors (at least 6): the group can double without a repartition, which moves keys.
  const partitions = Math.max(6, 2 * ingestors);
  const busiestQueueCore = cores.redis / Math.max(1, work.locations);
  const redisInstances = Math.min(Math.max(1, work.locations), up(cores.redis / REDIS_BUDGET));
  const pressure = [
    { role: 'runner process', load: cores.runner / runners / PROCESS_BUDGET },
    { role: 'ingestor process', load: cores.ingestor / ingestors / PROCESS_BUDGET },
    { role: 'one location’s due-queue on one Redis core', load: busiestQueueCore / REDIS_BUDGET },
    { role: 'API process', load: cores.api / up(cores.api / PROCESS_BUDGET) / PROCESS_BUDGET },
  ].sort((a, b) => b.load - a.load);
  const overloaded = pressure.find((entry) => entry.load > 1);
  const fixed = pressure.find((entry) => entry.role.startsWith('one location'))!;
  return {
    runsPerSecond,
    resultsPerSecond,
    readsPerSecond,
    deliveriesPerSecond,
    runners,
    ingestors,
    partitions,
    apis: up(cores.api / PROCESS_BUDGET),
    dispatchers: up(cores.dispatcher / PROCESS_BUDGET),
    redisCores: cores.redis,
    redisInstances,
    busiestQueueCore,
    kafkaCores: cores.kafka,
    clickhouseCores: cores.clickhouse,
    clickhouseDiskGiB: (resultsPerSecond * 86_400 * work.retentionDays * costs.bytesPerResult) / 1024 ** 3,
    redisMemoryMiB: (work.checks * work.locationsPerCheck * costs.redisBytesPerCheck) / 1024 ** 2,
    pressure,
    // Every stateless role scales out by adding processes; a location's queue does not. So the first
    // wall is the queue (when full), else whichever scalable role is nearest its per-process budget.
    firstBottleneck: overloaded?.role ?? (fixed.load > 0.5 ? fixed.role : pressure[0]!.role),
  };
}

/**
 * Runs per second of k runner processes against one on a host of `cores` cores, where Redis and
 * the check target share the cores: each process uses at most one core, and every run also costs
 * `otherMsPerRun` of the shared cores. The rehearsal in docs/capacity.md checks this against the
 * replicas bench.
 */
export function predictScaleOut(runnerMsPerRun: number, otherMsPerRun: number, cores: number, k: number): number {
  const rate = (n: number) => Math.min(n / runnerMsPerRun, cores / (runnerMsPerRun + otherMsPerRun));
  return rate(k) / rate(1);
}
