import { createAnalyticsReader, parseAnalyticsParams, type AnalyticsStore } from '#analytics';
import type { Logger } from '#core';
import { covers, isNoData, maintenanceAt, occurrencesBetween, type MaintenanceWindow } from '#domain';
import type { CheckView, ReadModels } from '#readmodels';
import { CheckStatusReads, MaintenanceWindowReads, StatusPageReads, type CheckStatus } from '#readmodels';
import type { StateStore } from '#statestore';

export type PublicState = 'operational' | 'degraded' | 'partial_outage' | 'major_outage' | 'maintenance' | 'unknown';
export type CheckState = 'passing' | 'degraded' | 'failing' | 'maintenance' | 'unknown';

/** Everything the public page shows, and nothing more: no ids, URLs, error messages or variables. */
export interface PublicStatusPage {
  title: string;
  description: string;
  state: PublicState;
  updatedAt: string;
  checks: {
    name: string;
    state: CheckState;
    uptime90d: number | null;
    days: { date: string; availability: number | null }[];
  }[];
  incidents: { check: string; kind: 'down' | 'degraded' | 'recovered'; at: string }[];
}

const DAY_MS = 86_400_000;
/** The page is rebuilt at most this often per process... */
export const PAGE_TTL_MS = 10_000;
/** ...from uptime bars at most this old (shared in the state store): 30 s staleness in all. */
export const UPTIME_TTL_MS = 20_000;
const INCIDENTS = 10;
/** Alerts that are no incident of the public page. */
const QUIET_ALERTS = new Set(['ALERT_SSL', 'ALERT_NO_DATA', 'ALERT_NO_DATA_RECOVERY']);
/** Maintenance ranges left out of one check's 90-day availability at most (a daily window is 90). */
const MAX_EXCLUDED_RANGES = 400;

export interface PublicStatusDeps {
  readModels: ReadModels;
  stateStore: StateStore;
  analytics: AnalyticsStore;
  log: Logger;
  now?: () => Date;
}

/**
 * Builds public status pages with two cache levels, so that however many visitors come, each
 * listed check costs at most one analytics query per cache period: the assembled page per slug
 * in process (10 s, one build in flight), and each check's 90-day bar in the state store (20 s,
 * shared by replicas; one computation in flight per process).
 */
export class PublicStatusPages {
  private readonly pages = new Map<string, { expires: number; value: Promise<PublicStatusPage | null> }>();
  private readonly uptimeInFlight = new Map<string, Promise<PublicStatusPage['checks'][number]['days']>>();
  private readonly reader;
  private readonly statusReads;
  private readonly pageReads;
  private readonly windowReads;
  private readonly now: () => Date;
  /** Analytics queries run, for the bench and tests. */
  analyticsQueries = 0;

  constructor(private readonly deps: PublicStatusDeps) {
    this.reader = createAnalyticsReader(deps.analytics);
    this.statusReads = new CheckStatusReads(deps.stateStore);
    this.pageReads = new StatusPageReads(deps.stateStore);
    this.windowReads = new MaintenanceWindowReads(deps.stateStore);
    this.now = deps.now ?? (() => new Date());
  }

  get(slug: string): Promise<PublicStatusPage | null> {
    const at = this.now().getTime();
    const cached = this.pages.get(slug);
    if (cached && cached.expires > at) return cached.value;
    const value = this.build(slug).catch((error: unknown) => {
      this.pages.delete(slug);
      throw error;
    });
    this.pages.set(slug, { expires: at + PAGE_TTL_MS, value });
    if (this.pages.size > 10_000) this.evict(at);
    return value;
  }

  private evict(at: number): void {
    for (const [slug, entry] of this.pages) if (entry.expires <= at) this.pages.delete(slug);
  }

  private async build(slug: string): Promise<PublicStatusPage | null> {
    const view = await this.pageReads.pageBySlug(slug);
    if (view === null) return null;
    const accountId = view.accountId;
    const [found, statuses, windows] = await Promise.all([
      this.deps.readModels.checksByIds(view.page.checkIds),
      this.statusReads.statuses(accountId),
      this.windowReads.windows(accountId),
    ]);
    const nowMs = this.now().getTime();
    const byId = new Map(found.filter((c) => c.accountId === accountId).map((c) => [c.check.id, c]));
    const listed = view.page.checkIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    const checks = await Promise.all(
      listed.map(async (c) => {
        const covering = windows.filter((window) => covers(window, c.check));
        const days = await this.uptime(c, covering);
        const measured = days.filter((d) => d.availability !== null);
        const uptime90d =
          measured.length === 0
            ? null
            : Math.round((measured.reduce((sum, d) => sum + d.availability!, 0) / measured.length) * 100) / 100;
        // Planned work shows as maintenance, not as the outage it may look like.
        const state =
          maintenanceAt(covering, c.check, nowMs) !== null
            ? 'maintenance'
            : checkState(c.check, statuses.get(c.check.id), nowMs);
        return { name: c.check.name, state, uptime90d, days };
      }),
    );
    const names = new Map(listed.map((c) => [c.check.id, c.check.name]));
    const alertPages = await Promise.all(
      listed.map((c) => this.statusReads.alerts({ accountId, checkId: c.check.id }, { limit: INCIDENTS, page: 1 })),
    );
    const incidents = alertPages
      .flatMap((p) => p.items)
      // A silence (NO_DATA) is no outage: the check shows "No data" while it lasts, and no incident.
      .filter((a) => !a.isReminder && !QUIET_ALERTS.has(a.alertType))
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
      .slice(0, INCIDENTS)
      .map((a) => ({
        check: names.get(a.checkId) ?? '',
        kind:
          a.alertType === 'ALERT_RECOVERY' || a.alertType === 'ALERT_DEGRADED_RECOVERY'
            ? ('recovered' as const)
            : a.alertType === 'ALERT_DEGRADED'
              ? ('degraded' as const)
              : ('down' as const),
        at: a.startedAt,
      }));
    return {
      title: view.page.title,
      description: view.page.description,
      state: overall(checks.map((c) => c.state)),
      updatedAt: this.now().toISOString(),
      checks,
      incidents,
    };
  }

  private uptime(view: CheckView, windows: MaintenanceWindow[]): Promise<PublicStatusPage['checks'][number]['days']> {
    const checkId = view.check.id;
    const running = this.uptimeInFlight.get(checkId);
    if (running) return running;
    const work = this.computeUptime(view, windows).finally(() => this.uptimeInFlight.delete(checkId));
    this.uptimeInFlight.set(checkId, work);
    return work;
  }

  private async computeUptime(
    view: CheckView,
    windows: MaintenanceWindow[],
  ): Promise<PublicStatusPage['checks'][number]['days']> {
    const now = this.now();
    const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    const from = new Date(today - 89 * DAY_MS);
    const to = new Date(today + DAY_MS);
    const exclude = excludedRanges(windows, from.getTime(), to.getTime());
    // The windows are part of the key: an edited window is not answered from a bar computed without it.
    const key = `console-cache:uptime90:${view.check.id}:${today}:${windowsKey(exclude)}`;
    const cached = await this.deps.stateStore.get(key);
    if (cached !== null) return JSON.parse(cached) as PublicStatusPage['checks'][number]['days'];
    const checkType = view.check.checkType;
    const request = parseAnalyticsParams(
      { from: from.toISOString(), to: to.toISOString(), aggregationInterval: '1440', metrics: 'availability' },
      { checkType, now },
    );
    this.analyticsQueries += 1;
    const answer = await this.reader.read({
      ...request,
      accountId: view.accountId,
      checkId: view.check.id,
      checkType,
      exclude,
    });
    const points = answer.series[0]?.data ?? [];
    const byDay = new Map(points.map((p) => [String(p.timestamp).slice(0, 10), p.availability]));
    const days = Array.from({ length: 90 }, (_, i) => {
      const date = new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      const value = byDay.get(date);
      return { date, availability: typeof value === 'number' ? Math.round(value * 100) / 100 : null };
    });
    await this.deps.stateStore
      .set(key, JSON.stringify(days), { ttlMs: UPTIME_TTL_MS })
      .catch((error: unknown) => this.deps.log.warn({ err: error }, 'status page cache write failed'));
    return days;
  }
}

/** The windows' occurrences in the range, merged where they touch, oldest first, bounded. */
function excludedRanges(windows: MaintenanceWindow[], fromMs: number, toMs: number) {
  const ranges = windows
    .flatMap((window) => occurrencesBetween(window, fromMs, toMs, MAX_EXCLUDED_RANGES))
    .sort((a, b) => a.startMs - b.startMs);
  const merged: { fromMs: number; toMs: number }[] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range.startMs <= last.toMs) last.toMs = Math.max(last.toMs, range.endMs);
    else merged.push({ fromMs: range.startMs, toMs: range.endMs });
  }
  return merged.slice(-MAX_EXCLUDED_RANGES);
}

function windowsKey(ranges: { fromMs: number; toMs: number }[]): string {
  if (ranges.length === 0) return '-';
  let hash = 0;
  for (const range of ranges) hash = (Math.imul(hash, 31) + range.fromMs * 7 + range.toMs) | 0;
  return `${ranges.length}.${(hash >>> 0).toString(36)}`;
}

/** An external check that stopped sending results shows "No data", not its last, stale state. */
function checkState(check: CheckView['check'], status: CheckStatus | undefined, nowMs: number): CheckState {
  if (!status || isNoData(check, status.lastRunAt, nowMs)) return 'unknown';
  if (status.hasFailures) return 'failing';
  return status.isDegraded ? 'degraded' : 'passing';
}

function overall(all: CheckState[]): PublicState {
  const states = all.filter((s) => s !== 'maintenance');
  if (states.length === 0 && all.length > 0) return 'maintenance';
  const failing = states.filter((s) => s === 'failing').length;
  if (failing > 0) return failing === states.length ? 'major_outage' : 'partial_outage';
  if (states.includes('degraded')) return 'degraded';
  if (states.length === 0 || states.every((s) => s === 'unknown')) return 'unknown';
  return 'operational';
}
