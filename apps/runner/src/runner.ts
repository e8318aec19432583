import type { Registry } from 'prom-client';
import { keepArtifacts, type ArtifactStore } from '#artifacts';
import { ConfigError, createSecretBox, parseEncryptionKey, sleep, type Logger, type SecretBox } from '#core';
import { isScriptCheck, type Check } from '#domain';
import type { Platform } from '#platform';
import { createBusSink, createDirectSink, type ResultSink } from '#pipeline';
import {
  attemptTimeoutCap,
  createProber,
  isScriptDefinition,
  runnableOf,
  type Prober,
  type ScriptRunner,
} from '#probes';
import { CheckStatusReads, ReadModels } from '#readmodels';
import type { RuntimeCatalogue } from '#runtimes';
import {
  Catalogue,
  decideRun,
  DueQueue,
  firstWindow,
  maxLatenessMs,
  nextWindow,
  offsetMs,
  plannedStart,
  runResultId,
  RunRuntimeResolver,
  RunVariableCache,
  type CatalogueEntry,
  type Claimed,
  type Placement,
  type Scheduled,
  type ScheduleChange,
  type SkipReason,
  type Slot,
} from '#scheduling';
import { createRunnerMetrics, type RunnerMetrics } from './metrics.ts';
import { FairShare } from './fairness.ts';
import { SaturationTracker, type SaturationDetails } from './saturation.ts';
import { createStartTimes } from './started.ts';
import { createResultWriter } from './writer.ts';
import { createHeartbeatCheck } from './heartbeat.ts';

export { lastPingKey } from './heartbeat.ts';

export interface RunnerSettings {
  location: string;
  /** Checks that name no location run here when location equals this. */
  defaultLocation: string;
  allowPrivate: boolean;
  concurrency: number;
  accountConcurrency: number;
  /** Script runs at once (each is a sandboxed Node, and Chromium for PLAYWRIGHT); default 4. */
  scriptConcurrency?: number;
  leaseMs: number;
  encryptionKey: string | undefined;
  chromiumPath?: string;
  /** What BROWSER checks drive when installed (see createProber). */
  headlessShellPath?: string;
  /** How often an idle runner looks for due runs. */
  pollMs?: number;
  /** How long SIGTERM waits for runs in progress before abandoning them to the lease. */
  drainMs?: number;
  /** How late a run may start, as a fraction of its frequency (at least 5 s), before it is skipped. */
  maxLateness?: number;
  /**
   * While this runner is saturated (it skipped a window in the last 10 s), how late a run may
   * start at most (default 1 s): under overload it serves the recently due and skips the oldest,
   * so the runs that do start start near on time rather than all at the edge of the lateness.
   */
  saturatedLateMs?: number;
}

export interface RunnerDeps {
  platform: Platform;
  settings: RunnerSettings;
  log: Logger;
  metrics?: Registry;
  /** Defaults: the result sink of the deployment, and the probe library. */
  sink?: ResultSink;
  prober?: Prober;
  /** Runs script checks in the sandbox; its creator closes it. Without one they fail saying so. */
  scripts?: ScriptRunner;
  /** Resolves the runtime of script checks that name none (group's, account's, else current). */
  runtimes?: RuntimeCatalogue;
  /** Where run artifacts go; default the platform's. Without one, runs keep none. */
  artifacts?: ArtifactStore;
}

export interface Runner {
  /** Resolves once the catalogue has caught up with the event store and the loop runs. */
  ready: Promise<void>;
  /** Whether this process skipped runs as late in the last minute (for /ready's details). */
  saturation(): SaturationDetails;
  stop(): Promise<void>;
}

const TIMEOUT_MARGIN_MS = 5_000;
/** A script run (with retries) may hold its lease this long at most. */
const MAX_SCRIPT_LEASE_MS = 15 * 60_000;
const RECONCILE_EVERY_MS = 30_000;
export const DEFAULT_MAX_LATENESS = 0.08;
const SATURATED_LATE_MS = 1_000;
const SATURATED_WITHIN_S = 10;

/** The sink of the deployment: Kafka when distributed, straight into the analytics store when embedded. */
export function defaultSink(platform: Platform): ResultSink {
  const { bus, analytics } = platform;
  if (!bus) throw new ConfigError('the runner needs the message bus');
  const topic = platform.topics.checkResults;
  if (platform.adapters.messageBus === 'kafka') return createBusSink(bus, topic);
  if (!analytics) throw new ConfigError('the embedded runner needs the analytics store');
  return createDirectSink(analytics, bus, topic);
}

/**
 * Runs the managed checks of one location on schedule. Every replica follows the check events
 * into its catalogue and claims due runs from the location's shared due-queue; a result is made
 * durable before its check is rescheduled, so a crash repeats a run (with the same result id)
 * instead of losing it.
 */
export function startRunner(deps: RunnerDeps): Runner {
  const { settings, platform } = deps;
  if (!settings.encryptionKey)
    throw new ConfigError(
      'VIGIL_ENCRYPTION_KEY: required (32 bytes as 64 hex characters); secrets are decrypted with it',
    );
  const box: SecretBox = createSecretBox(parseEncryptionKey(settings.encryptionKey));
  const log = deps.log.child({ component: 'runner', location: settings.location });
  const sink = deps.sink ?? defaultSink(platform);
  const artifactStore = deps.artifacts ?? platform.artifacts;
  const prober =
    deps.prober ??
    createProber({
      chromiumPath: settings.chromiumPath,
      headlessShellPath: settings.headlessShellPath,
      scripts: deps.scripts,
      logger: log,
    });
  const metrics: RunnerMetrics = createRunnerMetrics(deps.metrics);
  const saturation = new SaturationTracker(settings.location, metrics);
  const fair = new FairShare();
  const startedAtMs = Date.now();
  const queue = new DueQueue(platform.stateStore, settings.location);
  const catalogue = new Catalogue(settings.location, settings.defaultLocation);
  const readModels = new ReadModels(platform.stateStore);
  const statuses = new CheckStatusReads(platform.stateStore);
  const variables = new RunVariableCache(readModels, box);
  const runtimes = deps.runtimes ? new RunRuntimeResolver(readModels, deps.runtimes) : null;
  const pollMs = settings.pollMs ?? 100;
  const leaseMs = settings.leaseMs;
  const startTime = createStartTimes(platform.stateStore, settings.location, leaseMs);
  // A run (retries included) ends a margin before its lease does, so no replica takes over a live run.
  const leaseMargin = Math.min(TIMEOUT_MARGIN_MS, leaseMs / 5);

  const subscription = new AbortController();
  const abandon = new AbortController();
  let stopping = false;
  let caughtUp = false;
  const running = new Set<Promise<void>>();
  const perAccount = new Map<string, number>();
  let scriptsRunning = 0;
  let wakeLoop: () => void = () => {};

  const { emit, flush } = createResultWriter(sink, queue, log);

  const lateMs = (frequencyMs: number) => maxLatenessMs(frequencyMs, settings.maxLateness ?? DEFAULT_MAX_LATENESS);
  /** A run slot that carries its frequency, offset and lateness, so the claim can skip it when late. */
  const runSlot = (checkId: string, window: number, frequencyMs: number): Slot => ({
    kind: 'run',
    window,
    every: frequencyMs,
    offset: offsetMs(checkId, frequencyMs),
    late: lateMs(frequencyMs),
  });

  const fresh = (checkId: string, placement: Placement, atMs: number): Scheduled => {
    const group = catalogue.get(checkId)?.accountId;
    if (placement.kind === 'heartbeat') {
      return {
        checkId,
        group,
        slot: { kind: 'heartbeat', anchor: atMs, reported: 0 },
        due: atMs + placement.periodMs + placement.graceMs,
      };
    }
    const window = firstWindow(atMs, placement.frequencyMs);
    return {
      checkId,
      group,
      slot: runSlot(checkId, window, placement.frequencyMs),
      due: Math.max(plannedStart(checkId, window, placement.frequencyMs), atMs),
    };
  };

  const applyChange = async (change: ScheduleChange) => {
    if (!(await queue.firstToApply(change.eventId))) return;
    if (change.placement === null) await queue.remove([change.checkId]);
    else await queue.schedule([fresh(change.checkId, change.placement, change.atMs)]);
    log.debug({ checkId: change.checkId, placement: change.placement }, 'schedule changed');
  };

  /** Heals what a crash between two writes could leave: placed checks missing from the queue, and entries of checks gone. */
  const reconcile = async () => {
    const queued = await queue.members();
    const now = Date.now();
    const missing = catalogue
      .placed()
      .filter(({ entry }) => !queued.has(entry.checkId))
      .map(({ entry, placement }) => fresh(entry.checkId, placement, now));
    const gone = [...queued].filter((id) => catalogue.get(id) && !catalogue.placement(id));
    await queue.schedule(missing);
    await queue.remove(gone);
    await queue.sweepSkips(now);
    // Checks queued before claims were fair across accounts get their account named.
    const named = await queue.groups();
    await queue.setGroups(
      catalogue
        .placed()
        .filter(({ entry }) => queued.has(entry.checkId) && named[entry.checkId] !== entry.accountId)
        .map(({ entry }) => ({ checkId: entry.checkId, group: entry.accountId })),
    );
    if (missing.length + gone.length > 0) log.info({ added: missing.length, removed: gone.length }, 'queue reconciled');
  };

  const follow = async (markCaughtUp: () => void) => {
    let position = 0n;
    const head = await platform.eventStore.headPosition();
    if (head === 0n) markCaughtUp();
    while (!subscription.signal.aborted) {
      try {
        for await (const event of platform.eventStore.subscribeToAll({
          fromPosition: position,
          signal: subscription.signal,
        })) {
          position = event.position;
          let change: ScheduleChange | null = null;
          try {
            change = catalogue.apply(event);
          } catch (error) {
            log.error({ err: error, stream: event.stream, type: event.type }, 'check event skipped');
          }
          if (change && caughtUp) await applyChange(change);
          if (!caughtUp && position >= head) markCaughtUp();
        }
      } catch (error) {
        if (subscription.signal.aborted) break;
        log.warn({ err: error }, 'event subscription failed; resubscribing');
        await sleep(1_000, subscription.signal).catch(() => undefined);
      }
    }
  };

  const runCheck = async (claimed: Claimed, entry: CatalogueEntry, check: Check, window: number, next: Scheduled) => {
    const definition = runnableOf(check);
    if (!definition) return;
    const startedAt = new Date();
    metrics.delay.observe({ type: check.checkType }, Math.max(0, startedAt.getTime() - claimed.due) / 1000);
    const { variables: values, secretValues } = await variables.get(entry.accountId, check.groupId);
    const retry = 'retryStrategy' in check ? check.retryStrategy : undefined;
    const retries = retry && retry.type !== 'NONE' && retry.maxRetries > 0 ? retry : undefined;
    const script = isScriptDefinition(definition);
    const attemptTimeoutMs = Math.min(check.maxResponseTime + TIMEOUT_MARGIN_MS, attemptTimeoutCap(definition));
    let leaseEnds = claimed.leaseEnds;
    if (script) {
      // A script's budget (up to 240 s, with retries more) outlasts the usual lease: this claim's
      // lease is extended to cover it before the run starts, so no replica takes a live run over.
      const needed = attemptTimeoutMs + (retries ? retries.maxDurationSeconds * 1000 : 0) + 2 * leaseMargin;
      const wanted = startedAt.getTime() + Math.min(needed, MAX_SCRIPT_LEASE_MS);
      if (wanted > leaseEnds) {
        await queue.extend(check.id, wanted);
        leaseEnds = wanted;
      }
    }
    const runtimeId = script && runtimes ? await runtimes.resolve(entry.accountId, check) : undefined;
    const leaseLeft = leaseEnds - leaseMargin - startedAt.getTime();
    const signal = AbortSignal.any([abandon.signal, AbortSignal.timeout(Math.max(1, leaseLeft))]);
    const resultId = runResultId(check.id, settings.location, window);
    const context = {
      resultId,
      accountId: entry.accountId,
      checkId: check.id,
      location: settings.location,
      startedAt: await startTime(resultId, startedAt),
      degradedResponseTime: check.degradedResponseTime,
      maxResponseTime: check.maxResponseTime,
      variables: values,
      secretValues,
      allowPrivate: settings.allowPrivate,
      timeoutMs: Math.max(1, Math.min(attemptTimeoutMs, leaseLeft)),
      signal,
      ...(runtimeId ? { runtimeId } : {}),
    };
    const outcome = retries
      ? await prober.runWithRetries(definition, context, retries)
      : await prober.runProbe(definition, context);
    // Abandoned at shutdown: no result and no reschedule; the lease hands the window to a replica.
    if (abandon.signal.aborted) return;
    let result = outcome.result;
    if (outcome.artifacts && outcome.artifacts.length > 0 && artifactStore) {
      // Written before the result is emitted: a published result never names a missing artifact.
      // A store that fails costs the evidence, not the result.
      try {
        result = { ...result, artifacts: await keepArtifacts(artifactStore, result, outcome.artifacts) };
        metrics.artifacts.inc({ type: check.checkType }, outcome.artifacts.length);
      } catch (error) {
        log.warn({ err: error, checkId: check.id, resultId }, 'run artifacts not kept; the result goes without them');
      }
    }
    const label = result.hasFailures ? 'failed' : result.isDegraded ? 'degraded' : 'passed';
    metrics.runs.inc({ type: check.checkType, outcome: label });
    emit([result], next);
  };

  const checkHeartbeat = createHeartbeatCheck({
    metrics,
    statuses,
    stateStore: platform.stateStore,
    catalogue,
    location: settings.location,
    leaseMs,
    emit,
  });

  const dispatch = async (claimed: Claimed): Promise<void> => {
    const { checkId } = claimed;
    const entry = catalogue.get(checkId);
    // Scheduled by a replica that has seen an event this one has not: look again shortly.
    if (!entry) return queue.release(checkId, Date.now() + 1_000);
    const placement = catalogue.placement(checkId);
    if (!placement || !entry.check) return queue.remove([checkId]);
    const slot = claimed.slot;
    if (!slot || slot.kind !== placement.kind) return queue.schedule([fresh(checkId, placement, Date.now())]);
    if (slot.kind === 'heartbeat' && placement.kind === 'heartbeat')
      return checkHeartbeat(claimed, entry, slot, placement);
    if (slot.kind !== 'run' || placement.kind !== 'run') return;

    const now = Date.now();
    const frequencyMs = placement.frequencyMs;
    const dueMs = slot.due ?? plannedStart(checkId, slot.window, frequencyMs);
    const maxLateMs = lateMs(frequencyMs);
    fair.seen(entry.accountId, now);
    const decision = decideRun({
      checkId,
      window: slot.window,
      dueMs,
      claimedDueMs: claimed.due,
      nowMs: now,
      frequencyMs,
      leaseMs,
      maxLateMs,
      spared: () => fair.belowShare(entry.accountId, now),
    });
    if (decision.action === 'skip') {
      // Late because this runner (or its location) cannot keep up, unless no runner was up when it was due.
      const reason: SkipReason = decision.late || dueMs >= startedAtMs ? 'saturated' : 'runners-down';
      saturation.skipped(reason, decision.skipped.length, now);
      const skipped = reason === 'saturated' ? { windows: decision.skipped, reason } : undefined;
      // Through the batched writes: under overload skips are many, and each costs one entry in a batch.
      // After windows long past (an outage), the current window runs now: its start was missed by no fault of the load.
      const due = decision.late ? decision.due : Math.max(decision.due, now);
      return emit([], { checkId, slot: runSlot(checkId, decision.next, frequencyMs), due, skipped });
    }
    if (catalogue.paused(entry, now)) {
      // Planned work: this window's run is skipped, not delayed, and the next one is scheduled as usual.
      metrics.maintenance.inc();
      const next = nextWindow(checkId, decision.window, placement.frequencyMs);
      return queue.schedule([{ checkId, slot: runSlot(checkId, next.window, frequencyMs), due: next.due }]);
    }
    const busy = perAccount.get(entry.accountId) ?? 0;
    if (busy >= settings.accountConcurrency) {
      // Handed back with a small delay: other tenants' due runs come first meanwhile.
      return queue.release(checkId, now + 100 + Math.floor(Math.random() * 200));
    }
    const script = isScriptCheck(entry.check);
    if (script && scriptsRunning >= (settings.scriptConcurrency ?? 4)) {
      // Script runs are heavy (hundreds of MiB each): they wait for a slot without holding a lease.
      return queue.release(checkId, now + 250 + Math.floor(Math.random() * 500));
    }
    if (script) scriptsRunning += 1;
    fair.started(entry.accountId, now);
    perAccount.set(entry.accountId, busy + 1);
    metrics.inFlight.inc();
    try {
      const next = nextWindow(checkId, decision.window, placement.frequencyMs);
      await runCheck(claimed, entry, entry.check, decision.window, {
        checkId,
        slot: runSlot(checkId, next.window, frequencyMs),
        due: next.due,
      });
    } finally {
      if (script) scriptsRunning -= 1;
      metrics.inFlight.dec();
      const left = (perAccount.get(entry.accountId) ?? 1) - 1;
      if (left <= 0) perAccount.delete(entry.accountId);
      else perAccount.set(entry.accountId, left);
    }
  };

  const track = (claimed: Claimed) => {
    const task = dispatch(claimed)
      .catch((error) => log.error({ err: error, checkId: claimed.checkId }, 'run failed; the lease will repeat it'))
      .finally(() => {
        running.delete(task);
        wakeLoop();
      });
    running.add(task);
  };

  const claimBatch = Math.max(1, Math.floor(settings.concurrency / 10));
  const loop = async () => {
    while (!stopping) {
      const free = settings.concurrency - running.size;
      let claimed: Claimed[] = [];
      let skipped = 0;
      if (free > 0) {
        try {
          const now = Date.now();
          // Late windows are skipped inside the claim (no round trip each); runs first due before
          // this process started are left to decideRun, which tells an outage from saturation.
          ({ claimed, skipped } = await queue.claimRuns(now, leaseMs, Math.min(free, 500), {
            since: startedAtMs,
            ...fair.lateRule(now),
            ...(saturation.skippedWithin(SATURATED_WITHIN_S, now)
              ? { lateCapMs: settings.saturatedLateMs ?? SATURATED_LATE_MS }
              : {}),
          }));
          if (skipped > 0) saturation.skipped('saturated', skipped, now);
        } catch (error) {
          log.warn({ err: error }, 'claiming due runs failed');
        }
      }
      if (stopping) {
        // Claimed just as the stop began: handed straight back.
        await Promise.all(claimed.map((c) => queue.release(c.checkId, c.due).catch(() => undefined)));
        break;
      }
      for (const c of claimed) track(c);
      // A claim that only skipped leaves the slots free: claim again at once.
      if ((claimed.length === 0 && skipped === 0) || free <= claimed.length) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          // Saturated, every finished run would wake a claim of one: waiting for a batch of free
          // slots keeps the claims (a store round trip each) few per run, whatever the backlog.
          wakeLoop = () => {
            if (!stopping && settings.concurrency - running.size < claimBatch) return;
            clearTimeout(timer);
            resolve();
          };
        });
        wakeLoop = () => {};
      }
    }
  };

  let loopDone: Promise<void> = Promise.resolve();
  let reconcileTimer: NodeJS.Timeout | null = null;
  const following = new Promise<void>((resolve) => {
    const markCaughtUp = () => {
      caughtUp = true;
      resolve();
    };
    void follow(markCaughtUp).catch((error) => log.error({ err: error }, 'event subscription ended'));
  });
  const ready = following.then(async () => {
    if (stopping) return;
    await reconcile();
    reconcileTimer = setInterval(
      () => void reconcile().catch((error) => log.warn({ err: error }, 'reconcile failed')),
      RECONCILE_EVERY_MS,
    );
    reconcileTimer.unref();
    loopDone = loop();
    log.info({ checks: catalogue.placed().length }, 'runner started');
  });

  return {
    ready,
    saturation: () => saturation.details(),
    async stop() {
      stopping = true;
      wakeLoop();
      if (reconcileTimer) clearInterval(reconcileTimer);
      await loopDone;
      const drained = Promise.all(running).then(() => true);
      const cancel = new AbortController();
      const timedOut = sleep(settings.drainMs ?? 10_000, cancel.signal).then(() => false);
      const finished = await Promise.race([drained, timedOut]);
      cancel.abort();
      if (!finished) {
        log.warn({ runs: running.size }, 'runs abandoned at shutdown; their leases hand them to another replica');
        abandon.abort();
        await Promise.all(running);
      }
      await flush();
      // Anything emitted while the last write was in progress.
      await flush();
      subscription.abort();
      await prober.close();
      log.info('runner stopped');
    },
  };
}
