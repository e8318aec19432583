import type { SkipReason } from '#scheduling';
import type { RunnerMetrics } from './metrics.ts';

/** A location counts as saturated while its runner skipped a window for lateness this recently. */
const SATURATED_FOR_S = 60;

export interface SaturationDetails {
  location: string;
  saturated: boolean;
  /** Windows this process skipped as late in the last minute. */
  skippedLastMinute: number;
}

/**
 * What this runner process knows about its own overload: skips by reason (the metric) and whether
 * it skipped for lateness in the last minute (the flag /ready shows per location).
 */
export class SaturationTracker {
  // Skips per second over the last minute, in a ring: constant cost however many runs are skipped.
  private readonly perSecond = new Array<number>(60).fill(0);
  private readonly secondOf = new Array<number>(60).fill(-1);

  constructor(
    private readonly location: string,
    private readonly metrics: RunnerMetrics,
  ) {}

  skipped(reason: SkipReason, windows: number, nowMs = Date.now()): void {
    this.metrics.skipped.inc({ location: this.location, reason }, windows);
    if (reason !== 'saturated') return;
    const second = Math.floor(nowMs / 1000);
    const slot = second % 60;
    if (this.secondOf[slot] !== second) {
      this.secondOf[slot] = second;
      this.perSecond[slot] = 0;
    }
    this.perSecond[slot]! += windows;
  }

  /** Whether this process skipped a window as late in the last `seconds` seconds. */
  skippedWithin(seconds: number, nowMs = Date.now()): boolean {
    const second = Math.floor(nowMs / 1000);
    for (let i = 0; i < 60; i++) if (this.secondOf[i]! > second - seconds && this.perSecond[i]! > 0) return true;
    return false;
  }

  details(nowMs = Date.now()): SaturationDetails {
    const second = Math.floor(nowMs / 1000);
    let skippedLastMinute = 0;
    for (let i = 0; i < 60; i++)
      if (this.secondOf[i]! > second - SATURATED_FOR_S) skippedLastMinute += this.perSecond[i]!;
    return { location: this.location, saturated: skippedLastMinute > 0, skippedLastMinute };
  }
}
