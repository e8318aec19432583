import { z } from 'zod';
import type { AlertEvent } from '#alerting';
import type { CheckResult } from '#domain';
import type { StateStore, WriteOp } from '#statestore';

/**
 * The check-status and alert-history read models. They follow the bus (results and alert
 * events), not the event store, so they live outside `rm:` and survive a read-model rebuild;
 * their durability is the consumer group's committed offsets plus idempotent writes.
 */
export const STATUS_PREFIX = 'cs:';
export const statusKeys = {
  /** Hash per account: field checkId → status JSON, so 1,000 checks are one HGETALL. */
  accountStatuses: (accountId: string) => `cs:status:${accountId}`,
  alert: (alertId: string) => `cs:alert:${alertId}`,
  /** Sorted by the alert's run time (ms), member alertId. */
  accountAlerts: (accountId: string) => `cs:alerts:${accountId}`,
  checkAlerts: (checkId: string) => `cs:check-alerts:${checkId}`,
};

export const checkStatusSchema = z.object({
  checkId: z.string(),
  hasFailures: z.boolean(),
  hasErrors: z.boolean(),
  isDegraded: z.boolean(),
  longestRun: z.number().nullable(),
  shortestRun: z.number().nullable(),
  lastRunLocation: z.string().nullable(),
  lastCheckRunId: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  lastResponseTime: z.number().nullable(),
  sslDaysRemaining: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type CheckStatus = z.output<typeof checkStatusSchema>;

/**
 * Folds a check's results into its status. Order-independent for the same set of results (the
 * newest startedAt wins, ties by result id; longest/shortest are max/min), so a redelivered or
 * reordered batch gives the same document.
 */
export function foldStatus(current: CheckStatus | null, result: CheckResult): CheckStatus {
  const newer =
    current === null ||
    current.lastRunAt === null ||
    result.startedAt > current.lastRunAt ||
    (result.startedAt === current.lastRunAt && result.id > (current.lastCheckRunId ?? ''));
  const longestRun = Math.max(current?.longestRun ?? 0, result.responseTime);
  const shortestRun = Math.min(current?.shortestRun ?? Number.POSITIVE_INFINITY, result.responseTime);
  const createdAt = current === null || result.startedAt < current.created_at ? result.startedAt : current.created_at;
  if (!newer) return { ...current, longestRun, shortestRun, created_at: createdAt };
  return {
    checkId: result.checkId,
    hasFailures: result.hasFailures,
    // An error is a run that could not be judged at all (no status code, no answer), not a failed assertion.
    hasErrors: result.hasFailures && result.errorMessage !== undefined && result.statusCode === undefined,
    isDegraded: !result.hasFailures && result.isDegraded,
    longestRun,
    shortestRun,
    lastRunLocation: result.runLocation,
    lastCheckRunId: result.id,
    lastRunAt: result.startedAt,
    lastResponseTime: result.responseTime,
    sslDaysRemaining: result.ssl?.daysRemaining ?? current?.sslDaysRemaining ?? null,
    created_at: createdAt,
    updated_at: result.startedAt,
  };
}

/** Write ops for a batch of results, given the statuses stored now (by account and check). */
export function statusOps(results: readonly CheckResult[], stored: Map<string, CheckStatus | null>): WriteOp[] {
  const next = new Map<string, { accountId: string; status: CheckStatus }>();
  for (const result of results) {
    // A NO_DATA signal is not a run: the status keeps the last result, and NO_DATA is derived from its age.
    if (result.noData) continue;
    const key = `${result.accountId}/${result.checkId}`;
    const before = next.get(key)?.status ?? stored.get(key) ?? null;
    next.set(key, { accountId: result.accountId, status: foldStatus(before, result) });
  }
  return [...next.values()].map(({ accountId, status }) => ({
    op: 'hset',
    key: statusKeys.accountStatuses(accountId),
    field: status.checkId,
    value: JSON.stringify(status),
  }));
}

/** The alert as the history shows it; idempotent by alertId (a replay writes the same keys). */
export function alertOps(event: AlertEvent): WriteOp[] {
  const score = Date.parse(event.startedAt);
  return [
    { op: 'set', key: statusKeys.alert(event.alertId), value: JSON.stringify(event) },
    { op: 'zadd', key: statusKeys.accountAlerts(event.accountId), member: event.alertId, score },
    { op: 'zadd', key: statusKeys.checkAlerts(event.checkId), member: event.alertId, score },
  ];
}

function parseStatus(raw: string | null | undefined): CheckStatus | null {
  if (!raw) return null;
  const parsed = checkStatusSchema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : null;
}

/** Reads of both models, for the API. */
export class CheckStatusReads {
  constructor(private readonly store: StateStore) {}

  /** Every status of the account in one round trip. */
  async statuses(accountId: string): Promise<Map<string, CheckStatus>> {
    const all = await this.store.hgetall(statusKeys.accountStatuses(accountId));
    const out = new Map<string, CheckStatus>();
    for (const [checkId, raw] of Object.entries(all)) {
      const status = parseStatus(raw);
      if (status) out.set(checkId, status);
    }
    return out;
  }

  async status(accountId: string, checkId: string): Promise<CheckStatus | null> {
    return parseStatus(await this.store.hget(statusKeys.accountStatuses(accountId), checkId));
  }

  /** Newest first. `checkId` narrows to one check (the caller has checked it belongs to the account). */
  async alerts(
    scope: { accountId: string; checkId?: string },
    page: { limit: number; page: number },
  ): Promise<{ items: AlertEvent[]; total: number }> {
    const index = scope.checkId ? statusKeys.checkAlerts(scope.checkId) : statusKeys.accountAlerts(scope.accountId);
    const total = await this.store.zcard(index);
    // zrange is ascending: page from the end.
    const stop = total - 1 - (page.page - 1) * page.limit;
    const start = Math.max(0, stop - page.limit + 1);
    if (stop < 0) return { items: [], total };
    const members = (await this.store.zrange(index, start, stop)).reverse();
    const docs = await this.store.getMany(members.map((m) => statusKeys.alert(m.member)));
    const items = docs
      .filter((doc): doc is string => doc !== null)
      .map((doc) => JSON.parse(doc) as AlertEvent)
      .filter((event) => event.accountId === scope.accountId);
    return { items, total };
  }
}

/** Helper for the consumer: the stored statuses of the checks in a batch. */
export async function storedStatuses(
  store: StateStore,
  results: readonly CheckResult[],
): Promise<Map<string, CheckStatus | null>> {
  const keys = [...new Set(results.map((r) => `${r.accountId}/${r.checkId}`))];
  const values = await Promise.all(
    keys.map((key) => {
      const [accountId, checkId] = key.split('/') as [string, string];
      return store.hget(statusKeys.accountStatuses(accountId), checkId);
    }),
  );
  return new Map(keys.map((key, i) => [key, parseStatus(values[i])]));
}
