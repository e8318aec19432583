import { describe, expect, it } from 'vitest';
import { planCapacity, predictScaleOut, type UnitCosts, type Workload } from './model.ts';

const costs: UnitCosts = {
  runnerMsPerRun: 0.4,
  redisMsPerRun: 0.1,
  ingestorMsPerResult: 0.02,
  kafkaMsPerResult: 0.01,
  clickhouseMsPerResult: 0.01,
  clickhouseMsPerQuery: 5,
  apiMsPerCachedRead: 0.05,
  apiMsPerComputedRead: 0.5,
  dispatcherMsPerDelivery: 0.2,
  bytesPerResult: 30,
  redisBytesPerCheck: 500,
};
const work: Workload = {
  checks: 60_000,
  frequencySeconds: 60,
  locationsPerCheck: 1,
  locations: 4,
  readers: 1_000,
  checksPerDashboard: 20,
  pollSeconds: 30,
  cacheHitRate: 0.9,
  alertsPerCheckPerDay: 2,
  channelsPerAlert: 2,
  retentionDays: 30,
};

describe('capacity model', () => {
  it('turns unit costs into processes at 0.6 of a core each', () => {
    const plan = planCapacity(costs, work);
    expect(plan.runsPerSecond).toBe(1_000);
    // 1,000 runs/s × 0.4 ms = 0.4 cores → one runner; Redis 0.1 cores over 4 queues.
    expect(plan.runners).toBe(1);
    expect(plan.redisCores).toBeCloseTo(0.1);
    expect(plan.busiestQueueCore).toBeCloseTo(0.025);
    expect(plan.partitions).toBe(6);
    // 667 reads/s: 600 cached × 0.05 + 67 computed × 0.5 = 63 ms/s.
    expect(plan.readsPerSecond).toBeCloseTo(666.7, 1);
    expect(plan.apis).toBe(1);
    expect(plan.clickhouseDiskGiB).toBeCloseTo((1_000 * 86_400 * 30 * 30) / 1024 ** 3);
  });

  it('scales the stateless roles linearly and names the queue once it is full', () => {
    const big = planCapacity(costs, { ...work, checks: 6_000_000 });
    expect(big.runners).toBe(Math.ceil((100_000 * 0.4) / 1000 / 0.6));
    expect(big.ingestors).toBe(Math.ceil((100_000 * 0.02) / 1000 / 0.6));
    expect(big.partitions).toBe(2 * big.ingestors);
    // 100,000 runs/s × 0.1 ms over 4 locations = 2.5 cores per queue: more than one Redis thread.
    expect(big.busiestQueueCore).toBeCloseTo(2.5);
    expect(big.firstBottleneck).toContain('due-queue');
    expect(big.redisInstances).toBe(4);
  });

  it('names the busiest scalable role while every queue has room', () => {
    const plan = planCapacity({ ...costs, apiMsPerComputedRead: 50 }, work);
    expect(plan.firstBottleneck).toBe('API process');
  });

  it('predicts replicas sharing a host with Redis and the target', () => {
    // Each run costs 0.4 ms in the runner and 0.2 elsewhere: two cores carry 2 / 0.6 runs per ms.
    expect(predictScaleOut(0.4, 0.2, 2, 2)).toBeCloseTo(0.8 / 0.6);
    expect(predictScaleOut(0.4, 0.2, 2, 4)).toBeCloseTo(0.8 / 0.6);
    // With nothing else on the host, k processes on k cores scale k-fold.
    expect(predictScaleOut(0.4, 0, 4, 4)).toBeCloseTo(4);
  });
});
