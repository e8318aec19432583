import type { CheckResult } from '#domain';
import type { StateStore } from '#statestore';
import type { CheckStatusReads } from '#readmodels';
import {
  evaluateHeartbeat,
  heartbeatResultId,
  noDataSignal,
  type Catalogue,
  type CatalogueEntry,
  type Claimed,
  type Placement,
  type Scheduled,
  type Slot,
} from '#scheduling';
import type { RunnerMetrics } from './metrics.ts';

/** Where the API's ping route keeps the time of a check's last ping (apps/api services/heartbeats.ts). */
export const lastPingKey = (checkId: string) => `heartbeat:last:${checkId}`;

export interface HeartbeatDeps {
  metrics: RunnerMetrics;
  statuses: CheckStatusReads;
  stateStore: StateStore;
  catalogue: Catalogue;
  location: string;
  leaseMs: number;
  emit(results: CheckResult[], next: Scheduled): void;
}

/**
 * A heartbeat check's look at its pings (or an external check's at its results): each missed
 * period is reported once as a FAILING result (one NO_DATA signal per look for an external check),
 * and the next look is scheduled at the next period's deadline.
 */
export function createHeartbeatCheck(deps: HeartbeatDeps) {
  return async (
    claimed: Claimed,
    entry: CatalogueEntry,
    slot: Extract<Slot, { kind: 'heartbeat' }>,
    placement: Extract<Placement, { kind: 'heartbeat' }>,
  ): Promise<void> => {
    const now = Date.now();
    deps.metrics.delay.observe({ type: 'HEARTBEAT' }, Math.max(0, now - claimed.due) / 1000);
    // An external check's "pings" are its results: the status read model holds the newest one's time.
    const raw =
      placement.watch === 'results'
        ? ((await deps.statuses.status(entry.accountId, entry.checkId))?.lastRunAt ?? null)
        : await deps.stateStore.get(lastPingKey(entry.checkId));
    const parsed = raw === null ? NaN : Date.parse(raw);
    const evaluation = evaluateHeartbeat(
      slot,
      Number.isFinite(parsed) ? parsed : null,
      now,
      placement.periodMs,
      placement.graceMs,
      deps.leaseMs,
    );
    // A ping missed while a pausing window covers the check is no failure: planned work stops pings too.
    const missed = evaluation.missed.filter((expected) => !deps.catalogue.paused(entry, expected + placement.graceMs));
    if (placement.watch === 'results') {
      // One signal per look, for the latest missed window: the alerter alerts once per silence.
      const latest = missed.at(-1);
      const signal =
        latest === undefined || !entry.check
          ? []
          : [noDataSignal(entry.check, entry.accountId, latest, placement.graceMs, deps.location)];
      if (signal.length > 0) deps.metrics.runs.inc({ type: entry.check!.checkType, outcome: 'no-data' });
      const next = { checkId: entry.checkId, slot: { kind: 'heartbeat' as const, ...evaluation.state } };
      return deps.emit(signal, { ...next, due: evaluation.due });
    }
    const results = missed.map((expected): CheckResult => {
      const deadline = expected + placement.graceMs;
      return {
        id: heartbeatResultId(entry.checkId, expected),
        accountId: entry.accountId,
        checkId: entry.checkId,
        checkType: 'HEARTBEAT',
        startedAt: new Date(deadline).toISOString(),
        runLocation: deps.location,
        hasFailures: true,
        isDegraded: false,
        responseTime: 0,
        attempts: 1,
        heartbeat: { status: 'FAILING' },
        errorMessage: `No ping received by ${new Date(deadline).toISOString()} (period ${placement.periodMs / 1000} s + grace ${placement.graceMs / 1000} s)`,
      };
    });
    for (const _ of results) deps.metrics.runs.inc({ type: 'HEARTBEAT', outcome: 'missed' });
    deps.emit(results, {
      checkId: entry.checkId,
      slot: { kind: 'heartbeat', ...evaluation.state },
      due: evaluation.due,
    });
  };
}
