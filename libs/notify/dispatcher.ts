import type { AlertEvent, LocationAlert } from '#alerting';
import type { AlertChannelView, PrivateLocationReads } from '#readmodels';
import type { TemplateVariables } from '#webhooks';
import { Attempter, type AttempterOptions, type AttemptOutcome } from './attempt.ts';
import { channelOrigin } from './channels/outgoing.ts';
import { channelWants, channelWantsLocation } from './channels.ts';
import { DEFAULT_CHANNEL_ENDPOINTS, type ChannelEndpoints } from './config.ts';
import { alertTimeMs, deliveryIdFor } from './delivery-id.ts';
import { eachInLanes, KeySlots } from './lanes.ts';
import { inPipeline } from './pipeline.ts';
import { locationTemplateVariables } from './location-variables.ts';
import { RetryLoop } from './retry-loop.ts';
import type { Delivery } from './store.ts';
import {
  accountTemplateVariables,
  checkContext,
  templateVariablesFrom,
  type AccountTemplateVariables,
  type CheckContext,
} from './variables.ts';

export type { AttemptOutcome } from './attempt.ts';

/** What the attempter takes, less what the dispatcher works out itself (endpoints, the wake-up). */
export interface DispatcherOptions extends Omit<AttempterOptions, 'endpoints' | 'onScheduled' | 'locations'> {
  /** Deliveries attempted at once (fresh and retries each). */
  concurrency?: number;
  /** Of those, at most this many to one receiver origin (scheme, host, port); all of them by default. */
  perOrigin?: number;
  /** Longest the retry loop sleeps when the queue is empty. */
  idleMs?: number;
  /** The SMTP relay and the hosted services' APIs; by default no email and the public APIs. */
  channels?: ChannelEndpoints;
  /** Private locations, to render ALERT_LOCATION_* alerts; without them those deliveries are refused. */
  locations?: PrivateLocationReads;
  /** Alert events per step of handleAlerts (default 500): what one step holds in memory. */
  stepSize?: number;
  /** Steps of one handleAlerts call running at once (default 2): the next is taken while the last commits. */
  pipelineDepth?: number;
}

/** One fresh delivery to attempt, with what it renders. */
interface Candidate {
  delivery: Delivery;
  view: AlertChannelView;
  context?: CheckContext;
  variables: Promise<TemplateVariables>;
}

/**
 * Renders, signs and delivers webhooks. Fresh alerts are attempted as they arrive, and each
 * delivery is written once, together with its first attempt (group-committed with the others
 * that finish meanwhile); the alert batch is acknowledged only after every record is durable, so
 * a crash replays the batch and only what was not recorded is attempted again, with the same id.
 * Failed ones go to a durable, leased retry queue served by its own loop, so retries never delay
 * fresh alerts and only one dispatcher attempts a delivery at a time.
 */
export class Dispatcher {
  private readonly endpoints: ChannelEndpoints;
  /**
   * In-flight attempts per receiver origin, fresh and retries together: without it the retry
   * loop's own slots came on top of the fresh lanes' (about 96 at once to one receiver).
   */
  private readonly originSlots: KeySlots;
  /** Attempts in flight in all, shared by the steps that run at once (the retry loop has its own). */
  private readonly freshSlots: KeySlots;
  /**
   * Delivery ids a running step attempts or records, with that step's attempts and records: a
   * repeated alert event in a step that runs beside it would find no record yet. That step skips
   * the id instead of attempting it twice, and waits for the owner's outcome (its own batch is
   * then acknowledged only once the delivery is recorded, and fails if the owner failed).
   */
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly attempter: Attempter;
  private readonly retries: RetryLoop;

  constructor(private readonly options: DispatcherOptions) {
    const log = options.log.child({ component: 'dispatcher' });
    this.endpoints = options.channels ?? DEFAULT_CHANNEL_ENDPOINTS;
    this.originSlots = new KeySlots(options.perOrigin ?? options.concurrency ?? 32);
    this.freshSlots = new KeySlots(options.concurrency ?? 32);
    this.attempter = new Attempter({
      ...options,
      log,
      endpoints: this.endpoints,
      onScheduled: (at) => this.retries.scheduled(at),
    });
    this.retries = new RetryLoop({
      store: options.store,
      readModels: options.readModels,
      attempter: this.attempter,
      originSlots: this.originSlots,
      endpoints: this.endpoints,
      log,
      limit: options.concurrency ?? 32,
      idleMs: options.idleMs ?? 1000,
      leaseMs: options.timeoutMs + 10_000,
    });
  }

  /**
   * The fresh path: one delivery per interested channel per alert, each created once. Events go
   * in steps of `stepSize`, `pipelineDepth` at once; this resolves only once every step's
   * records are durable (and rejects if any step failed), so the caller acknowledges the whole
   * batch or none of it.
   */
  handleAlerts(events: AlertEvent[]): Promise<void> {
    return inPipeline(events, { size: this.options.stepSize ?? 500, depth: this.options.pipelineDepth ?? 2 }, (step) =>
      this.handleStep(step),
    );
  }

  private async handleStep(events: AlertEvent[]): Promise<void> {
    // One look-up per check and per account for the whole batch, not one per delivery.
    const contexts = new Map<string, Promise<CheckContext | null>>();
    const subscribed = new Map<string, Promise<AlertChannelView[]>>();
    const variables = new Map<string, Promise<TemplateVariables>>();
    // The account's variables, read once per account for the step and shared by its alerts.
    const accounts = new Map<string, Promise<AccountTemplateVariables>>();
    // Each becomes a Candidate once its variables are known (set in place: no copy per delivery).
    const candidates: (Omit<Candidate, 'variables'> & { event: AlertEvent; variables?: Candidate['variables'] })[] = [];
    for (const event of events) {
      if (!contexts.has(event.checkId))
        contexts.set(event.checkId, checkContext(this.options.readModels, event.checkId));
      const context = await contexts.get(event.checkId)!;
      if (!context) continue;
      if (!subscribed.has(event.checkId))
        subscribed.set(event.checkId, this.options.readModels.channelsFor(event.checkId, context.check.groupId));
      const channels = (await subscribed.get(event.checkId)!).filter(
        (view) => view.channel.accountId === event.accountId && channelWants(view, event),
      );
      const timeMs = alertTimeMs(event);
      for (const view of channels) {
        const now = Date.now();
        candidates.push({
          view,
          context,
          event,
          delivery: {
            id: deliveryIdFor(event, view.channel.id, timeMs),
            channelId: view.channel.id,
            accountId: event.accountId,
            checkId: event.checkId,
            alertType: event.alertType,
            alert: event,
            test: false,
            attempts: 0,
            status: 'pending',
            nextAttemptAt: now,
            createdAt: now,
            updatedAt: now,
            lastError: null,
          },
        });
      }
    }
    const unseen = await this.unseenIds(candidates);
    const { claimed, elsewhere } = this.claimOnce(candidates, unseen);
    const fresh: Candidate[] = [];
    for (const candidate of claimed) {
      const key = candidate.event.alertId;
      let shared = variables.get(key);
      if (!shared) {
        const { event } = candidate;
        let account = accounts.get(event.accountId);
        if (!account)
          accounts.set(event.accountId, (account = accountTemplateVariables(this.options.readModels, event.accountId)));
        const context = candidate.context!;
        shared = account.then((part) => templateVariablesFrom(part, event, context, this.options.publicUrl));
        variables.set(key, shared);
      }
      candidate.variables = shared;
      fresh.push(candidate as Candidate);
    }
    // No await since claimOnce: attemptFresh puts the ids in inFlight at once.
    await this.attemptFresh(fresh, elsewhere);
  }

  /**
   * Alerts about private locations (not on the bus: the location watch decides them). They go to
   * every channel of the location's account that sends failures (UNAVAILABLE) or recoveries, once
   * per channel as any alert: the delivery id is fixed by the alert id, and recorded deliveries
   * are not attempted again. A delivery's checkId holds the location's id.
   */
  async handleLocationAlerts(alerts: LocationAlert[]): Promise<void> {
    const locations = this.options.locations;
    if (!locations) throw new Error('this dispatcher was not given the private locations');
    const candidates: Candidate[] = [];
    for (const alert of alerts) {
      const location = await locations.location(alert.locationId);
      if (!location || location.accountId !== alert.accountId) continue;
      const channels = (await this.options.readModels.alertChannels(alert.accountId)).filter(
        (view) => view.channel.accountId === alert.accountId && channelWantsLocation(view, alert),
      );
      const variables = locationTemplateVariables(this.options.readModels, alert, location, this.options.publicUrl);
      variables.catch(() => undefined);
      const now = Date.now();
      for (const view of channels)
        candidates.push({
          view,
          variables,
          delivery: {
            id: deliveryIdFor(alert, view.channel.id),
            channelId: view.channel.id,
            accountId: alert.accountId,
            checkId: alert.locationId,
            alertType: alert.alertType,
            alert,
            test: false,
            attempts: 0,
            status: 'pending',
            nextAttemptAt: now,
            createdAt: now,
            updatedAt: now,
            lastError: null,
          },
        });
    }
    const unseen = await this.unseenIds(candidates);
    const { claimed, elsewhere } = this.claimOnce(candidates, unseen);
    await this.attemptFresh(claimed, elsewhere);
  }

  private async unseenIds(candidates: { delivery: Delivery }[]): Promise<Set<string>> {
    const unseen = await this.options.store.unseen(candidates.map((c) => c.delivery));
    return new Set(unseen.map((delivery) => delivery.id));
  }

  /**
   * Each unrecorded id once: a repeated event (at-least-once upstream) in this call, or one a
   * step beside it already attempts, whose outcome goes into `elsewhere` to be waited on.
   * Synchronous on purpose: the caller must hand `claimed` to attemptFresh (which puts the ids
   * in `inFlight`) with no await in between, or a step beside it could claim the same ids.
   */
  private claimOnce<T extends { delivery: Delivery }>(
    candidates: T[],
    unseen: Set<string>,
  ): { claimed: T[]; elsewhere: Set<Promise<void>> } {
    const taken = new Set<string>();
    const elsewhere = new Set<Promise<void>>();
    const claimed = candidates.filter((candidate) => {
      const id = candidate.delivery.id;
      if (!unseen.has(id) || taken.has(id)) return false;
      const owner = this.inFlight.get(id);
      if (owner) elsewhere.add(owner);
      else taken.add(id);
      return !owner;
    });
    return { claimed, elsewhere };
  }

  /**
   * First attempts, in lanes per receiver; resolves once every attempt made is durably recorded,
   * and the deliveries other steps own (`elsewhere`) are settled too. The candidates' ids are in
   * `inFlight` from the call until their records are written or failed.
   */
  private async attemptFresh(fresh: Candidate[], elsewhere: Set<Promise<void>> = new Set()): Promise<void> {
    const done = this.attemptInLanes(fresh);
    for (const candidate of fresh) this.inFlight.set(candidate.delivery.id, done);
    try {
      await done;
    } finally {
      for (const candidate of fresh) this.inFlight.delete(candidate.delivery.id);
    }
    await Promise.all(elsewhere);
  }

  private async attemptInLanes(fresh: Candidate[]): Promise<void> {
    const concurrency = this.options.concurrency ?? 32;
    const records: Promise<void>[] = [];
    const attempted = eachInLanes(
      fresh,
      {
        limit: concurrency,
        perKey: this.originSlots.perKey,
        key: (item) => channelOrigin(item.view.channel, this.endpoints),
        slots: this.originSlots,
        total: this.freshSlots,
      },
      async (item) => {
        await this.attempter.attempt(
          item.delivery,
          { channel: item.view, context: item.context, variables: await item.variables },
          false,
          records,
        );
      },
    );
    // The batch is acknowledged (this resolves) only once every attempt made is durably recorded.
    const [sent] = await Promise.allSettled([attempted]);
    // Every attempt of the batch is made, and its last records are built in the check phase
    // (Attempter.attempt): once they are added, they need not wait out the window.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.options.store.flushPending();
    // Records of one group commit share its promise: each is waited on once.
    const written = await Promise.allSettled(new Set(records));
    const failure = [sent!, ...written].find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** One attempt, recorded with the delivery's next state in one write (a test send through the API). */
  attempt(
    delivery: Delivery,
    channelOverride?: AlertChannelView,
    contextOverride?: CheckContext,
    variablesOverride?: TemplateVariables,
  ): Promise<AttemptOutcome> {
    return this.attempter.attempt(
      delivery,
      { channel: channelOverride, context: contextOverride, variables: variablesOverride },
      true,
    );
  }

  /** Starts the retry loop. */
  start(): void {
    this.retries.start();
  }

  async stop(): Promise<void> {
    await this.retries.stop();
  }
}
