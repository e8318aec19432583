import { describe, expect, it } from 'vitest';
import {
  decideClaim,
  decideRun,
  maxLatenessMs,
  evaluateHeartbeat,
  heartbeatResultId,
  nextWindow,
  offsetMs,
  plannedStart,
  runResultId,
  windowStart,
} from './schedule.ts';

const MIN = 60_000;
const t0 = Date.parse('2026-11-23T10:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('windows and offsets', () => {
  it('aligns windows to the epoch', () => {
    expect(windowStart(t0 + 59_999, MIN)).toBe(t0);
    expect(windowStart(t0 + MIN, MIN)).toBe(t0 + MIN);
    expect(windowStart(t0 + 7 * MIN, 5 * MIN)).toBe(t0 + 5 * MIN);
  });

  it('gives each check a stable offset inside the window', () => {
    for (let n = 0; n < 200; n++) {
      const offset = offsetMs(id(n), MIN);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(MIN);
      expect(offsetMs(id(n), MIN)).toBe(offset);
      expect(plannedStart(id(n), t0, MIN)).toBe(t0 + offset);
    }
  });

  it('spreads 10,000 one-minute checks across the minute', () => {
    const perSecond = new Array<number>(60).fill(0);
    for (let n = 0; n < 10_000; n++) perSecond[Math.floor(offsetMs(id(n), MIN) / 1000)]! += 1;
    // Uniform would be ~167 a second; none near "all at second 0".
    expect(Math.max(...perSecond)).toBeLessThan(260);
    expect(Math.min(...perSecond)).toBeGreaterThan(90);
  });

  it('derives one result id per check, location and window', () => {
    const a = runResultId(id(1), 'eu-west-1', t0);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(runResultId(id(1), 'eu-west-1', t0)).toBe(a);
    expect(runResultId(id(1), 'us-east-1', t0)).not.toBe(a);
    expect(runResultId(id(1), 'eu-west-1', t0 + MIN)).not.toBe(a);
    expect(runResultId(id(2), 'eu-west-1', t0)).not.toBe(a);
    expect(heartbeatResultId(id(1), t0)).not.toBe(heartbeatResultId(id(1), t0 + MIN));
  });

  it('moves to the next window after a run', () => {
    expect(nextWindow(id(3), t0, MIN)).toEqual({ window: t0 + MIN, due: t0 + MIN + offsetMs(id(3), MIN) });
  });
});

describe('claim decision (catch-up rule)', () => {
  const lease = 15_000;
  it('runs the window that is due, and one a lease late (a run repeated after a crash)', () => {
    const planned = plannedStart(id(4), t0, MIN);
    expect(decideClaim(id(4), t0, planned + 5, MIN, lease)).toEqual({ action: 'run', window: t0, planned });
    expect(decideClaim(id(4), t0, t0 + MIN + lease - 1, MIN, lease).action).toBe('run');
  });

  it('skips windows long past for the current one: a restart runs at most the current window', () => {
    const now = t0 + 10 * MIN + 30_000;
    const decision = decideClaim(id(5), t0, now, MIN, lease);
    expect(decision).toEqual({ action: 'skip', next: t0 + 10 * MIN, due: plannedStart(id(5), t0 + 10 * MIN, MIN) });
    expect(decideClaim(id(5), t0, t0 + MIN + lease, MIN, lease).action).toBe('skip');
  });
});

describe('overload policy: skip, not late', () => {
  const lease = 15_000;
  const maxLateMs = maxLatenessMs(MIN, 0.1);
  const input = (nowMs: number, extra: { dueMs?: number; claimedDueMs?: number } = {}) => {
    const dueMs = extra.dueMs ?? plannedStart(id(6), t0, MIN);
    return {
      checkId: id(6),
      window: t0,
      dueMs,
      claimedDueMs: extra.claimedDueMs ?? dueMs,
      nowMs,
      frequencyMs: MIN,
      leaseMs: lease,
      maxLateMs,
    };
  };

  it('allows a tenth of the frequency, at least 5 s', () => {
    expect(maxLatenessMs(MIN, 0.1)).toBe(6_000);
    expect(maxLatenessMs(MIN, 0.01)).toBe(5_000);
    expect(maxLatenessMs(10 * MIN, 0.1)).toBe(60_000);
  });

  it('given a run within its lateness, then it runs; past it, then the window is skipped for the next', () => {
    const due = plannedStart(id(6), t0, MIN);
    expect(decideRun(input(due + maxLateMs)).action).toBe('run');
    const late = decideRun(input(due + maxLateMs + 1));
    expect(late).toMatchObject({ action: 'skip', late: true, skipped: [t0] });
    // The next window, never the same one again: at most one run (or skip) per window.
    expect(late.action === 'skip' && late.next).toBe(Math.max(t0 + MIN, windowStart(due + maxLateMs + 1, MIN)));
  });

  it('given a claim taken over after a lease (a dead replica), then it still runs while the lease rule allows', () => {
    const due = plannedStart(id(6), t0, MIN);
    const decision = decideRun(input(due + lease + 100, { claimedDueMs: due + lease + 50 }));
    expect(decision.action).toBe('run');
  });

  it('given windows long past (an outage), then they are skipped as not late, the newest 60 at most', () => {
    const decision = decideRun(input(t0 + 90 * MIN + 30_000));
    expect(decision).toMatchObject({ action: 'skip', late: false, next: t0 + 90 * MIN });
    expect(decision.action === 'skip' && decision.skipped).toHaveLength(60);
  });
});

describe('heartbeat miss periods', () => {
  const period = MIN;
  const grace = 10_000;
  const tolerance = 15_000;

  it('reports nothing before period + grace', () => {
    const e = evaluateHeartbeat({ anchor: t0, reported: 0 }, null, t0 + period + grace - 1, period, grace, tolerance);
    expect(e.missed).toEqual([]);
    expect(e.due).toBe(t0 + period + grace);
  });

  it('reports one FAILING per missed period, each once', () => {
    const first = evaluateHeartbeat({ anchor: t0, reported: 0 }, null, t0 + period + grace, period, grace, tolerance);
    expect(first.missed).toEqual([t0 + period]);
    expect(first.state).toEqual({ anchor: t0, reported: 1 });
    expect(first.due).toBe(t0 + 2 * period + grace);
    const again = evaluateHeartbeat(first.state, null, t0 + period + grace + 5_000, period, grace, tolerance);
    expect(again.missed).toEqual([]);
    const second = evaluateHeartbeat(first.state, null, t0 + 2 * period + grace + 1, period, grace, tolerance);
    expect(second.missed).toEqual([t0 + 2 * period]);
  });

  it('re-anchors on a ping, and counts missed periods from it', () => {
    const ping = t0 + 70_000;
    const e = evaluateHeartbeat({ anchor: t0, reported: 1 }, ping, ping + 30_000, period, grace, tolerance);
    expect(e.missed).toEqual([]);
    expect(e.state).toEqual({ anchor: ping, reported: 0 });
    expect(e.due).toBe(ping + period + grace);
    // A ping older than the anchor (before watching began) changes nothing.
    expect(evaluateHeartbeat({ anchor: t0, reported: 0 }, t0 - 5, t0 + 1, period, grace, tolerance).state.anchor).toBe(
      t0,
    );
  });

  it('after a long outage reports only the recent periods, never a burst of old ones', () => {
    const now = t0 + 100 * period + grace + 5_000;
    const e = evaluateHeartbeat({ anchor: t0, reported: 0 }, null, now, period, grace, tolerance);
    expect(e.missed).toEqual([t0 + 100 * period]);
    expect(e.state.reported).toBe(100);
    // With one-second periods a 15 s tolerance keeps the last 15 or so periods.
    const fast = evaluateHeartbeat({ anchor: t0, reported: 0 }, null, t0 + 3_600_000, 1_000, 0, tolerance);
    expect(fast.missed.length).toBeGreaterThan(10);
    expect(fast.missed.length).toBeLessThanOrEqual(16);
    expect(fast.missed.at(-1)).toBe(t0 + 3_600_000);
  });
});
