import type { UnitCosts, Workload } from './model.ts';

/**
 * Unit costs for docs/capacity.md. Each is a bench's figure; where it came from is beside it in
 * SOURCES, and the page's "Unit costs" table gives the run. Update both when a bench moves one.
 */
export const COSTS: UnitCosts = {
  runnerMsPerRun: 0.395,
  redisMsPerRun: 0.063,
  ingestorMsPerResult: 0.016,
  kafkaMsPerResult: 0.0027,
  clickhouseMsPerResult: 0.0088,
  clickhouseMsPerQuery: 6,
  apiMsPerCachedRead: 0.033,
  apiMsPerComputedRead: 2,
  dispatcherMsPerDelivery: 0.07,
  bytesPerResult: 29.5,
  redisBytesPerCheck: 650,
};

export const SOURCES: Record<keyof UnitCosts, string> = {
  runnerMsPerRun:
    'runner --replicas 2 --redis --checks 150000: one replica pinned to one core at its ceiling (98% of the core, nothing skipped), CPU ÷ runs',
  redisMsPerRun: 'the same phase: Redis INFO cpu ÷ runs (0.083 ms when replicas also skip under overload)',
  ingestorMsPerResult: 'ingest --kafka-ceiling: the ingestor process draining a 500,000-result backlog, CPU ÷ results',
  kafkaMsPerResult:
    'capacity --around ingest --kafka-ceiling: broker CPU ÷ 6.5M results produced (each consumed once or twice)',
  clickhouseMsPerResult:
    'capacity --around ingest --kafka-ceiling: server CPU ÷ 7.0M results inserted, merges included',
  clickhouseMsPerQuery:
    'ClickHouse 18.16 server time of a one-check, 3-metric query (system.query_log, issue 16 round); an upper bound on its CPU',
  apiMsPerCachedRead:
    'api: main-thread CPU of a cached GET /v1/variables/{key} (an analytics answer from the cache has a larger body: a floor)',
  apiMsPerComputedRead:
    'analytics api-overhead.ts: HTTP, auth, route, reader and cache write of a cache miss, wall time at load 9 (an upper bound on CPU)',
  dispatcherMsPerDelivery: 'webhooks: dispatcher CPU (every thread) ÷ deliveries, all endpoints answering',
  bytesPerResult: 'ClickHouse system.parts of the test suites’ runner results: compressed bytes ÷ rows',
  redisBytesPerCheck:
    'Redis MEMORY USAGE of a location’s queue, groups hash, slot and start keys with 175,000 checks, ÷ checks',
};

const common = {
  frequencySeconds: 60,
  locationsPerCheck: 1,
  readers: 1_000,
  checksPerDashboard: 20,
  pollSeconds: 60,
  // Worst case: no two readers share a check and every poll computes (the readers bench measured
  // 0.92 when dashboards overlap, 8 to a check).
  cacheHitRate: 0,
  alertsPerCheckPerDay: 2,
  channelsPerAlert: 2,
  retentionDays: 30,
};

export const WORKLOADS: Workload[] = [
  { ...common, checks: 10_000, locations: 2 },
  { ...common, checks: 100_000, locations: 5 },
  { ...common, checks: 1_000_000, locations: 10 },
];
