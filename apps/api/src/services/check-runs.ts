import { randomUUID } from 'node:crypto';
import { keepArtifacts, type ArtifactStore } from '#artifacts';
import { RateLimitedError, ValidationError, type SecretBox } from '#core';
import {
  applyCheckDefaults,
  type Check,
  type CheckFields,
  type CheckInput,
  type CheckResult,
  type Viewer,
} from '#domain';
import type { ResultSink } from '#pipeline';
import { resolveRunVariables, type CheckGroupView, type ReadModels, type RunVariables } from '#readmodels';
import type { Access } from '../access.ts';
import type { LocationCatalogue } from '../locations.ts';
import type { CheckService } from './checks.ts';
import { RunSlots } from './run-slots.ts';
import {
  attemptTimeoutCap,
  isScriptDefinition,
  runnableOf,
  type ProbeOutcome,
  type Prober,
  type RunnableDefinition,
} from '#probes';
import type { RuntimeCatalogue } from '#runtimes';

export interface CheckRunOptions {
  readModels: ReadModels;
  checks: CheckService;
  box: SecretBox;
  sink: ResultSink;
  prober: Prober;
  /** Where checks that name no location run (VIGIL_RUNNER_DEFAULT_LOCATION). */
  location: string;
  allowPrivate: boolean;
  /** Which locations a test run may name (the same rule as a saved check's). */
  locations?: LocationCatalogue;
  /** Probe runs at once per account, and in the whole process. */
  perAccount?: number;
  perProcess?: number;
  /** Resolves the runtime of a script check that names none: its group's, its account's, else the current one. */
  runtimes?: RuntimeCatalogue;
  /** Where a triggered run's artifacts go, before its result; without one they are dropped. */
  artifacts?: ArtifactStore;
}

/** A run as the API answers it: the result, and how each assertion fared. */
export type RunReport = ProbeOutcome;

const TIMEOUT_MARGIN_MS = 5_000;
const RETRY_AFTER_SECONDS = 5;

/**
 * Runs started from the API: the editor's "Run" button (an unsaved definition, stored nowhere)
 * and "run now" (a saved check, from each of its locations, stored and alerting like any run).
 *
 * Every probe run takes one of the account's slots (and one of the process's). A request starts
 * only when its account has a slot free, else 429; the locations of a trigger then run as slots
 * free up, so a trigger over many locations queues behind the account's own bound instead of
 * fanning out past it.
 */
export class CheckRunService {
  readonly slots: RunSlots;

  constructor(private readonly options: CheckRunOptions) {
    this.slots = new RunSlots(options.perAccount ?? 5, options.perProcess ?? 50);
  }

  async test(access: Access, input: CheckInput): Promise<RunReport> {
    const fields = applyCheckDefaults(input);
    const definition = runnableDefinition(fields);
    await this.options.locations?.assertUsable(access.accountId, fields.locations);
    const group = fields.groupId ? await this.groupOf(access, fields.groupId) : null;
    // A private location's network is reached only by its agents: the API runs from a runner location.
    const location = this.clusterLocations(fields.locations)[0] ?? this.options.location;
    // The answer goes to this caller only: they see what GET /v1/variables/{key} shows them.
    const variables = await this.variables(access.accountId, group, { role: access.role, actor: access.actor });
    this.admit(access.accountId);
    // Stored nowhere, so its artifacts are not kept either.
    const { result, assertions } = await this.slots.run(access.accountId, () =>
      this.run({ ...fields, id: randomUUID() } as Check, definition, access.accountId, variables, location),
    );
    return { result, assertions };
  }

  async trigger(access: Access, checkId: string): Promise<{ results: RunReport[] }> {
    const { check } = await this.options.checks.getCheck(access, checkId);
    const definition = runnableDefinition(check);
    const group = check.groupId ? await this.groupOf(access, check.groupId) : null;
    const locations = check.locations.length > 0 ? this.clusterLocations(check.locations) : [this.options.location];
    if (locations.length === 0)
      throw new ValidationError(
        `locations: this check runs only at private locations (${check.locations.join(', ')}), whose agents run it on schedule; Vigil cannot run it from there on demand`,
      );
    // Stored and read by everyone in the account: locked values are scrubbed like secrets.
    const variables = await this.variables(access.accountId, group);
    this.admit(access.accountId);
    const reports = await Promise.all(
      locations.map((location) =>
        this.slots.run(access.accountId, () => this.run(check, definition, access.accountId, variables, location)),
      ),
    );
    const kept = await Promise.all(reports.map((report) => this.keep(report)));
    await this.options.sink.accept(kept.map((report) => report.result));
    return { results: kept };
  }

  /** The locations the API itself may run from: not private ones (those are the agents'). */
  private clusterLocations(locations: readonly string[]): string[] {
    const catalogue = this.options.locations;
    if (!catalogue) return [...locations];
    const cluster = new Set([...catalogue.publicLocations, this.options.location]);
    return locations.filter((location) => cluster.has(location));
  }

  /** Writes a stored run's artifacts first, so its result never names a missing one; a failing store costs only them. */
  private async keep({ result, assertions, artifacts }: RunReport): Promise<RunReport> {
    const store = this.options.artifacts;
    if (!store || !artifacts || artifacts.length === 0) return { result, assertions };
    try {
      return { result: { ...result, artifacts: await keepArtifacts(store, result, artifacts) }, assertions };
    } catch {
      return { result, assertions };
    }
  }

  private variables(accountId: string, group: CheckGroupView['group'] | null, viewer?: Viewer) {
    return resolveRunVariables(this.options.readModels, this.options.box, accountId, group, viewer);
  }

  /** Synchronous up to the first slot taken, so two requests cannot both pass on one free slot. */
  private admit(accountId: string): void {
    if (!this.slots.hasRoom(accountId))
      throw new RateLimitedError(
        `Too many runs in progress (at most ${this.slots.perAccount} per account); try again when one finishes`,
        RETRY_AFTER_SECONDS,
      );
  }

  private async run(
    check: Check,
    definition: RunnableDefinition,
    accountId: string,
    { variables, secretValues }: RunVariables,
    location: string,
  ): Promise<RunReport> {
    const timeoutMs = Math.min(check.maxResponseTime + TIMEOUT_MARGIN_MS, attemptTimeoutCap(definition));
    const runtimeId = isScriptDefinition(definition) ? await this.runtimeOf(accountId, check) : undefined;
    const context = {
      ...(runtimeId ? { runtimeId } : {}),
      resultId: randomUUID(),
      accountId,
      checkId: check.id,
      location,
      startedAt: new Date(),
      degradedResponseTime: check.degradedResponseTime,
      maxResponseTime: check.maxResponseTime,
      variables,
      secretValues,
      allowPrivate: this.options.allowPrivate,
      timeoutMs,
      signal: AbortSignal.timeout(timeoutMs + TIMEOUT_MARGIN_MS),
    };
    const retry = 'retryStrategy' in check ? check.retryStrategy : undefined;
    return retry && retry.type !== 'NONE' && retry.maxRetries > 0
      ? this.options.prober.runWithRetries(definition, context, retry)
      : this.options.prober.runProbe(definition, context);
  }

  private async runtimeOf(accountId: string, check: Check): Promise<string | undefined> {
    if (check.runtimeId || !this.options.runtimes) return check.runtimeId ?? undefined;
    const group = check.groupId ? await this.options.readModels.checkGroup(check.groupId) : null;
    const account = await this.options.readModels.account(accountId);
    const groupRuntime = group?.accountId === accountId ? group.group.runtimeId : null;
    return groupRuntime ?? account?.runtimeId ?? this.options.runtimes.current.name;
  }

  private async groupOf(access: Access, groupId: string) {
    const view = await this.options.readModels.checkGroup(groupId);
    if (!view || view.accountId !== access.accountId) {
      throw new ValidationError(`groupId: check group ${groupId} not found in this account`);
    }
    return view.group;
  }
}

/** What the runner runs for a check; a check without a definition is fed from outside. */
export function runnableDefinition(check: CheckFields | Check): RunnableDefinition {
  if (check.checkType === 'HEARTBEAT')
    throw new ValidationError('checkType: heartbeat checks are run by their pings (GET /ping/{token}), not by Vigil');
  const definition = runnableOf(check);
  if (definition) return definition;
  const field = ['MULTI_STEP', 'PLAYWRIGHT'].includes(check.checkType) ? 'script' : 'request';
  throw new ValidationError(
    `${field}: this ${check.checkType} check has no definition to run; it is an external check, fed through POST /v1/check-results`,
  );
}

export type { CheckResult };
