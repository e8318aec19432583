import { sleep, ValidationError, type SecretBox } from '#core';
import { effectiveLocations, parseCheckResult, type Check, type CheckResult } from '#domain';
import type { ResultSink } from '#pipeline';
import type { PrivateLocationView, ReadModels } from '#readmodels';
import { isScriptCheck } from '#domain';
import { loadCatalogue, RuntimeCatalogue } from '#runtimes';
import type { StateStore } from '#statestore';
// The same leased due-queue and schedule the cluster's runners use, keyed by the private location.
import {
  decideClaim,
  DueQueue,
  firstWindow,
  nextWindow,
  placementOf,
  queueKeys,
  runResultId,
  RunRuntimeResolver,
  RunVariableCache,
  slotSchema,
  type Scheduled,
} from '#scheduling';

/** One leased run as an agent receives it: the check, its variables (secrets decrypted) and the window. */
export interface AgentLease {
  checkId: string;
  accountId: string;
  /** Start of the run's window (ms); results and renewals name it. */
  window: number;
  resultId: string;
  location: string;
  leaseEndsAt: number;
  check: Check;
  variables: Record<string, string>;
  secretValues: string[];
  /** Script checks: the runtime to run in. */
  runtimeId?: string;
}

export interface AgentResultItem {
  checkId: string;
  window: number;
  result: unknown;
}

/** Never a real location name: checks that name none run at the runners' default, never at a private location. */
const NO_DEFAULT = '\u0000';
/** How often a location's queue is compared with its checks: a new check waits at most this long. */
const RECONCILE_EVERY_MS = 10_000;
const POLL_MS = 250;
const GATHER_MS = 250;

/** The queue of a private location: by id, so two accounts' equal slugs never share one. */
export const privateQueueName = (locationId: string) => `private:${locationId}`;

/**
 * The API side of agents: keeps each private location's due-queue in step with the checks that
 * list its slug, leases due runs to agents, takes their results and schedules the next window.
 * Exactly one run per (check, location, window) holds as for runners: a claim is a lease in the
 * shared queue, and a result's id is derived here from (check, slug, window), never taken from the agent.
 */
export class AgentWork {
  private readonly reconciled = new Map<string, number>();
  /** Decrypted once a second per account and group, not per lease (as the runners do). */
  private readonly variables: RunVariableCache;
  /** A script check naming no runtime runs in its group's, else its account's, else the current one: resolved here. */
  private readonly runtimes: RunRuntimeResolver;

  constructor(
    private readonly store: StateStore,
    private readonly readModels: ReadModels,
    box: SecretBox,
    private readonly sink: ResultSink,
    readonly leaseMs: number,
  ) {
    this.variables = new RunVariableCache(readModels, box);
    this.runtimes = new RunRuntimeResolver(readModels, new RuntimeCatalogue(loadCatalogue(), () => new Date()));
  }

  async lease(location: PrivateLocationView, max: number, waitMs: number, signal?: AbortSignal): Promise<AgentLease[]> {
    const deadline = Date.now() + waitMs;
    const queue = this.queue(location);
    for (;;) {
      await this.reconcile(location);
      const now = Date.now();
      const leases = await this.claim(location, queue, max, now);
      // Runs fall due one by one across the minute: gather a moment longer, so one request carries several.
      if (leases.length > 0 && leases.length < max && Date.now() + GATHER_MS < deadline) {
        await sleep(GATHER_MS, signal).catch(() => undefined);
        leases.push(...(await this.claim(location, queue, max - leases.length, Date.now())));
      }
      if (leases.length > 0 || Date.now() + POLL_MS > deadline || signal?.aborted) return leases;
      await sleep(POLL_MS, signal).catch(() => undefined);
    }
  }

  private async claim(location: PrivateLocationView, queue: DueQueue, max: number, now: number): Promise<AgentLease[]> {
    const claimed = max > 0 ? await queue.claim(now, this.leaseMs, max) : [];
    const leases: AgentLease[] = [];
    const checks = await this.placedChecks(
      location,
      claimed.map((entry) => entry.checkId),
    );
    for (const entry of claimed) {
      const lease = await this.prepare(location, queue, entry.checkId, checks.get(entry.checkId), entry.slot, now);
      if (lease) leases.push(lease);
    }
    return leases;
  }

  /** Takes results, validated and named here; reschedules each check unless its window already moved on. */
  async accept(location: PrivateLocationView, items: AgentResultItem[]): Promise<{ accepted: number }> {
    const results: CheckResult[] = [];
    const next: Scheduled[] = [];
    const slug = location.location.slugName;
    const checks = await this.placedChecks(
      location,
      items.map((item) => item.checkId),
    );
    const slots = await this.slots(
      location,
      items.map((item) => item.checkId),
    );
    for (const [index, item] of items.entries()) {
      const check = checks.get(item.checkId);
      if (!check) continue;
      const parsed = parseCheckResult({
        ...(item.result as object),
        id: runResultId(check.id, slug, item.window),
        accountId: location.accountId,
        checkId: check.id,
        checkType: check.checkType,
        runLocation: slug,
      });
      if (!parsed.ok) throw new ValidationError(`results[${index}].result: ${parsed.message}`);
      results.push(parsed.value);
      const slot = slots[index];
      if (slot?.kind === 'run' && slot.window === item.window) {
        const following = nextWindow(check.id, item.window, check.frequency * 60_000);
        next.push({ checkId: check.id, slot: { kind: 'run', window: following.window }, due: following.due });
      }
    }
    // Durable first, then rescheduled: a crash in between repeats the run with the same result id.
    if (results.length > 0) await this.sink.accept(results);
    await this.queue(location).schedule(next);
    return { accepted: results.length };
  }

  async renew(location: PrivateLocationView, items: { checkId: string; window: number }[]): Promise<number> {
    const queue = this.queue(location);
    let renewed = 0;
    for (const item of items) {
      const slot = await this.slot(location, item.checkId);
      if (slot?.kind !== 'run' || slot.window !== item.window) continue;
      await queue.extend(item.checkId, Date.now() + this.leaseMs);
      renewed += 1;
    }
    return renewed;
  }

  async release(location: PrivateLocationView, items: { checkId: string; window: number }[]): Promise<number> {
    const queue = this.queue(location);
    let released = 0;
    for (const item of items) {
      const slot = await this.slot(location, item.checkId);
      if (slot?.kind !== 'run' || slot.window !== item.window) continue;
      await queue.release(item.checkId, Date.now());
      released += 1;
    }
    return released;
  }

  private queue(location: PrivateLocationView): DueQueue {
    return new DueQueue(this.store, privateQueueName(location.location.id));
  }

  private async slot(location: PrivateLocationView, checkId: string) {
    const raw = await this.store.get(queueKeys(privateQueueName(location.location.id)).slot(checkId));
    if (raw === null) return null;
    const parsed = slotSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  }

  /**
   * The checks of these ids that are this account's, active, and run at this location: one read
   * for the checks and one per group they inherit locations from, not one round trip per run.
   */
  private async placedChecks(location: PrivateLocationView, checkIds: string[]): Promise<Map<string, Check>> {
    const placed = new Map<string, Check>();
    if (checkIds.length === 0) return placed;
    const views = (await this.readModels.checksByIds([...new Set(checkIds)])).filter(
      (view) => view.accountId === location.accountId,
    );
    const groupIds = [
      ...new Set(views.flatMap((v) => (v.check.locations.length === 0 && v.check.groupId ? [v.check.groupId] : []))),
    ];
    const groups = new Map(
      (await Promise.all(groupIds.map((id) => this.readModels.checkGroup(id)))).flatMap((view) =>
        view ? [[view.group.id, view.group] as const] : [],
      ),
    );
    for (const view of views) {
      const check = withEffectiveLocations(view.check, view.check.groupId ? groups.get(view.check.groupId) : null);
      if (placementOf(check, location.location.slugName, NO_DEFAULT)?.kind === 'run') placed.set(check.id, check);
    }
    return placed;
  }

  /** Each run's slot in the location's queue, in one read. */
  private async slots(location: PrivateLocationView, checkIds: string[]) {
    const keys = queueKeys(privateQueueName(location.location.id));
    const raw = await this.store.getMany(checkIds.map((checkId) => keys.slot(checkId)));
    return raw.map((text) => {
      if (text === null) return null;
      const parsed = slotSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    });
  }

  private async prepare(
    location: PrivateLocationView,
    queue: DueQueue,
    checkId: string,
    check: Check | undefined,
    slot: { kind: string; window?: number } | null,
    now: number,
  ): Promise<AgentLease | null> {
    if (!check) {
      await queue.remove([checkId]);
      return null;
    }
    const frequencyMs = check.frequency * 60_000;
    if (slot?.kind !== 'run' || slot.window === undefined) {
      await queue.schedule([fresh(checkId, frequencyMs, now)]);
      return null;
    }
    const decision = decideClaim(checkId, slot.window, now, frequencyMs, this.leaseMs);
    if (decision.action === 'skip') {
      await queue.schedule([{ checkId, slot: { kind: 'run', window: decision.next }, due: decision.due }]);
      return null;
    }
    const { variables, secretValues } = await this.variables.get(location.accountId, check.groupId);
    const runtimeId = isScriptCheck(check) ? await this.runtimes.resolve(location.accountId, check) : undefined;
    const slug = location.location.slugName;
    return {
      checkId,
      accountId: location.accountId,
      window: decision.window,
      resultId: runResultId(checkId, slug, decision.window),
      location: slug,
      leaseEndsAt: now + this.leaseMs,
      check,
      variables,
      secretValues,
      ...(runtimeId ? { runtimeId } : {}),
    };
  }

  /** Adds the checks that list the slug and are missing from the queue, and drops the ones that no longer do. */
  private async reconcile(location: PrivateLocationView): Promise<void> {
    const id = location.location.id;
    const now = Date.now();
    if ((this.reconciled.get(id) ?? 0) > now - RECONCILE_EVERY_MS) return;
    this.reconciled.set(id, now);
    const queue = this.queue(location);
    const slug = location.location.slugName;
    const groups = new Map(
      (await this.readModels.checkGroups(location.accountId)).map((view) => [view.group.id, view.group]),
    );
    const placed = (await this.readModels.checks(location.accountId)).filter(
      (view) =>
        placementOf(
          withEffectiveLocations(view.check, view.check.groupId ? groups.get(view.check.groupId) : null),
          slug,
          NO_DEFAULT,
        )?.kind === 'run',
    );
    const queued = await queue.members();
    const wanted = new Set(placed.map((view) => view.check.id));
    await queue.schedule(
      placed
        .filter((view) => !queued.has(view.check.id))
        .map((view) => fresh(view.check.id, view.check.frequency * 60_000, now)),
    );
    await queue.remove([...queued].filter((checkId) => !wanted.has(checkId)));
  }
}

/** The check as it is placed: with its group's locations when it names none of its own. */
function withEffectiveLocations(check: Check, group: { locations?: readonly string[] } | null | undefined): Check {
  return check.locations.length > 0 || !group ? check : { ...check, locations: effectiveLocations(check, group) };
}

/** A check new to the location runs its current window at once; later windows at its planned offset. */
function fresh(checkId: string, frequencyMs: number, nowMs: number): Scheduled {
  return { checkId, slot: { kind: 'run', window: firstWindow(nowMs, frequencyMs) }, due: nowMs };
}
