import type { CheckResultInput } from '#domain';
import type { Delivery } from './transport.ts';

/** Counts what a run generated and what the receiving end made of it. */
export class Tally {
  generated = 0;
  accepted = 0;
  rejected = 0;
  /** Results in batches that failed for good (after retries). */
  failed = 0;
  batches = 0;
  failedBatches = 0;
  hasFailures = 0;
  degraded = 0;
  retried = 0;
  readonly byType: Record<string, number> = {};
  readonly latenciesMs: number[] = [];
  readonly errors = new Map<string, number>();
  readonly rejections = new Map<string, number>();

  countGenerated(results: readonly CheckResultInput[]): void {
    this.generated += results.length;
    for (const result of results) {
      this.byType[result.checkType] = (this.byType[result.checkType] ?? 0) + 1;
      if (result.hasFailures) this.hasFailures++;
      if (result.isDegraded) this.degraded++;
      if ((result.attempts ?? 1) > 1) this.retried++;
    }
  }

  countDelivered(delivery: Delivery, latencyMs: number): void {
    this.batches++;
    this.accepted += delivery.accepted;
    this.rejected += delivery.rejected.length;
    this.latenciesMs.push(latencyMs);
    // Ids make every message unique; without them the same reason groups into one line.
    for (const { message } of delivery.rejected)
      bump(this.rejections, message.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>'));
  }

  countFailed(count: number, error: unknown): void {
    this.failedBatches++;
    this.failed += count;
    bump(this.errors, error instanceof Error ? error.message : String(error));
  }

  /** Results that reached the other end and got an answer, accepted or not. */
  get sent(): number {
    return this.accepted + this.rejected;
  }
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

export interface Summary {
  transport: 'http' | 'kafka';
  mode: 'realtime' | 'backfill';
  seed: string;
  checks: number;
  /** Results per second asked for; 0 means as fast as possible. */
  targetRate: number;
  elapsedSeconds: number;
  generated: number;
  sent: number;
  accepted: number;
  rejected: number;
  failed: number;
  /** Accepted results per second over the whole sending time, including the final drain. */
  achievedRate: number;
  batches: number;
  failedBatches: number;
  latencyMs: { p50: number; p95: number; max: number };
  results: { byType: Record<string, number>; failedShare: number; degradedShare: number; retriedShare: number };
  errors: { message: string; count: number }[];
  rejections: { message: string; count: number }[];
  /** Set when an error no retry could fix ended the run early. */
  stoppedBy: string | null;
}

type RunFacts = Pick<Summary, 'transport' | 'mode' | 'seed' | 'checks' | 'targetRate'> & {
  elapsedMs: number;
  fatal: string | null;
};

export function summarise(tally: Tally, run: RunFacts): Summary {
  const seconds = Math.max(run.elapsedMs, 1) / 1000;
  const sorted = [...tally.latenciesMs].sort((a, b) => a - b);
  const share = (count: number) => (tally.generated === 0 ? 0 : round(count / tally.generated, 4));
  return {
    transport: run.transport,
    mode: run.mode,
    seed: run.seed,
    checks: run.checks,
    targetRate: run.targetRate,
    elapsedSeconds: round(seconds, 2),
    generated: tally.generated,
    sent: tally.sent,
    accepted: tally.accepted,
    rejected: tally.rejected,
    failed: tally.failed,
    achievedRate: round(tally.accepted / seconds, 1),
    batches: tally.batches,
    failedBatches: tally.failedBatches,
    latencyMs: { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted[sorted.length - 1] ?? 0 },
    results: {
      byType: tally.byType,
      failedShare: share(tally.hasFailures),
      degradedShare: share(tally.degraded),
      retriedShare: share(tally.retried),
    },
    errors: top(tally.errors),
    rejections: top(tally.rejections),
    stoppedBy: run.fatal,
  };
}

export function formatSummary(summary: Summary): string {
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const lines = [
    `Simulated ${summary.checks} checks (${summary.mode}, seed ${summary.seed}) over ${summary.transport} for ${summary.elapsedSeconds} s`,
    `  generated ${summary.generated}, sent ${summary.sent}, accepted ${summary.accepted}, rejected ${summary.rejected}, failed ${summary.failed}`,
    `  achieved ${summary.achievedRate} results/s (target ${summary.targetRate === 0 ? 'unlimited' : `${summary.targetRate}/s`})`,
    `  ${summary.batches} batches, latency p50 ${summary.latencyMs.p50} ms, p95 ${summary.latencyMs.p95} ms, max ${summary.latencyMs.max} ms`,
    `  by type: ${
      Object.entries(summary.results.byType)
        .map(([type, count]) => `${type} ${count}`)
        .join(', ') || 'none'
    }`,
    `  runs failing ${percent(summary.results.failedShare)}, degraded ${percent(summary.results.degradedShare)}, retried ${percent(summary.results.retriedShare)}`,
  ];
  if (summary.stoppedBy) lines.push(`  stopped early: ${summary.stoppedBy}`);
  for (const { message, count } of summary.errors) lines.push(`  error (${count}×): ${message}`);
  for (const { message, count } of summary.rejections) lines.push(`  rejected (${count}×): ${message}`);
  return lines.join('\n');
}

/** A run succeeded when every result it sent was accepted and nothing stopped it early. */
export function succeeded(summary: Summary): boolean {
  return summary.stoppedBy === null && summary.failed === 0 && summary.rejected === 0;
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function top(counts: Map<string, number>): { message: string; count: number }[] {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([message, count]) => ({ message, count }));
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
