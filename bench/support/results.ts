import type { CheckResult } from '#domain';
import { seeded } from './stats.ts';

export const LOCATIONS = ['eu-west-1', 'us-east-1', 'ap-south-1', 'sa-east-1', 'eu-central-1'];

/** A UUID-shaped id, unique per (run prefix, index); version 4 and variant bits set so zod accepts it. */
export function resultId(prefix: string, index: number): string {
  return `${prefix}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

export interface Shape {
  accountId: string;
  checkIds: readonly string[];
  /** 8 hex characters: keeps ids of different runs apart. */
  idPrefix: string;
  /** startedAt of result i, in ms. */
  startedMs(index: number): number;
  seed?: number;
}

/**
 * Results `from` … `from + count - 1` of a deterministic stream: an API check's run with the
 * timing phases, ~2% failures with retries, exponential-ish response times. Built already valid
 * (the shape the v1 schema produces), so a generator is cheap next to what it feeds.
 */
export function makeResults(shape: Shape, from: number, count: number): CheckResult[] {
  const random = seeded((shape.seed ?? 7) + from);
  const out: CheckResult[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const i = from + k;
    const failed = random() < 0.02;
    out[k] = {
      id: resultId(shape.idPrefix, i),
      accountId: shape.accountId,
      checkId: shape.checkIds[i % shape.checkIds.length]!,
      checkType: 'API',
      startedAt: new Date(shape.startedMs(i)).toISOString(),
      runLocation: LOCATIONS[Math.floor(i / shape.checkIds.length) % LOCATIONS.length]!,
      hasFailures: failed,
      isDegraded: false,
      responseTime: Math.round((40 + -Math.log(1 - random()) * 160) * 10) / 10,
      attempts: failed ? 2 : 1,
      statusCode: failed ? 503 : 200,
      timings: {
        wait: Math.round(random() * 50) / 10,
        dns: Math.round(random() * 200) / 10,
        tcp: Math.round(random() * 300) / 10,
        firstByte: Math.round(random() * 2000) / 10,
        download: Math.round(random() * 500) / 10,
      },
    };
  }
  return out;
}

export function randomHex8(): string {
  return Math.floor(Math.random() * 0xffffffff)
    .toString(16)
    .padStart(8, '0');
}
