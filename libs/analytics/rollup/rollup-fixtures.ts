import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { checkResultSchema, type CheckResult } from '#domain';
import type { AnalyticsAnswer } from '../reader/reader.ts';
import { SKETCH_ALPHA } from './sketch.ts';

/** Test data and comparisons shared by the rollup suites (hourly and daily). */
export const LOCATIONS = ['eu-west-1', 'us-east-1', 'ap-south-1', 'sa-east-1'];

export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` API results of one check spread evenly over [from, from + span), 5% failing. */
export function results(accountId: string, checkId: string, count: number, from: number, span: number): CheckResult[] {
  const rand = random(7);
  return Array.from({ length: count }, (_, i) => {
    const failed = rand() < 0.05;
    return checkResultSchema.parse({
      id: randomUUID(),
      accountId,
      checkId,
      checkType: 'API',
      startedAt: new Date(from + Math.floor((i * span) / count)).toISOString(),
      runLocation: LOCATIONS[i % LOCATIONS.length],
      hasFailures: failed,
      responseTime: Math.round((20 + -Math.log(1 - rand()) * 180) * 10) / 10,
      attempts: failed ? 2 : 1,
      statusCode: failed ? 500 : 200,
      // dns is missing on some runs: NULL samples must not count.
      timings: rand() < 0.8 ? { dns: rand() * 40, firstByte: rand() * 300 } : { firstByte: rand() * 300 },
    });
  });
}

const PERCENTILE = /_(p50|p90|p95|p99|median)$/;

/** Every value that differs beyond tolerance: percentiles by the sketch's bound, the rest by rounding. */
export function differences(actual: AnalyticsAnswer, exact: AnalyticsAnswer): string[] {
  const out: string[] = [];
  expect(actual.series.length).toBe(exact.series.length);
  exact.series.forEach((entry, s) => {
    entry.data.forEach((point, p) => {
      for (const [name, want] of Object.entries(point)) {
        const got = actual.series[s]!.data[p]![name];
        if (typeof want !== 'number' || typeof got !== 'number') {
          if (got !== want) out.push(`${s}/${p}/${name}: ${String(got)} ≠ ${String(want)}`);
          continue;
        }
        const bound = PERCENTILE.test(name) ? SKETCH_ALPHA : 1e-9;
        if (Math.abs(got - want) > bound * Math.max(Math.abs(want), 1e-9))
          out.push(`${s}/${p}/${name}: ${got} vs ${want}`);
      }
    });
  });
  return out;
}
