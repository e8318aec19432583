import type { UnitCosts, Workload } from './model.ts';

/**
 * Unit costs for docs/capacity.md. Each is a bench's figure; where it came from is beside it in
 * SOURCES, and the page's "Unit costs" table gives the run. Update both when a bench moves one.
 */
export const COSTS: UnitCosts = {
  runnerMsPerRun: 0.42,
  redisMsPerRun: 0.11,
  ingestorMsPerResult: 0.02,
  kafkaMsPerResult: 0.02,
  clickhouseMsPerResult: 0.02,
  clickhouseMsPerQuery: 6,
  apiMsPerCachedRead: 0.1,
  apiMsPerComputedRead: 2,
  dispatcherMsPerDelivery: 0.171,
  bytesPerResult: 30,
  redisBytesPerCheck: 600,
};

export const SOURCES: Record<keyof UnitCosts, string> = {
  runnerMsPerRun: 'runner --replicas 2 --redis: a replica process pinned to one core, CPU ÷ runs',
  redisMsPerRun: 'runner --replicas 2 --redis: Redis INFO cpu over the phase ÷ runs',
  ingestorMsPerResult: 'ingest: the ingestor process, CPU ÷ results',
  kafkaMsPerResult: 'capacity --around ingest: broker CPU ÷ results produced and consumed',
  clickhouseMsPerResult: 'capacity --around ingest: server CPU ÷ results inserted',
  clickhouseMsPerQuery: 'capacity --around analytics: server CPU ÷ queries',
  apiMsPerCachedRead: 'analytics --readers: API CPU per cached answer',
  apiMsPerComputedRead: 'analytics --readers: API CPU per computed answer',
  dispatcherMsPerDelivery: 'webhooks: dispatcher CPU ÷ deliveries',
  bytesPerResult: 'ClickHouse system.parts after the analytics bench load: compressed bytes ÷ rows',
  redisBytesPerCheck: 'Redis INFO memory with N checks scheduled, ÷ N',
};

const common = {
  frequencySeconds: 60,
  locationsPerCheck: 1,
  readers: 1_000,
  checksPerDashboard: 20,
  pollSeconds: 30,
  cacheHitRate: 0.5,
  alertsPerCheckPerDay: 2,
  channelsPerAlert: 2,
  retentionDays: 30,
};

export const WORKLOADS: Workload[] = [
  { ...common, checks: 10_000, locations: 2 },
  { ...common, checks: 100_000, locations: 5 },
  { ...common, checks: 1_000_000, locations: 10 },
];
