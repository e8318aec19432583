import { Counter, type Registry } from 'prom-client';
import type { AlertEvent, LocationAlert } from '#alerting';
import { sleep, type Logger, type SecretBox } from '#core';
import type { AlertChannelView, PrivateLocationReads, ReadModels } from '#readmodels';
import {
  deliverWebhook,
  nextAttemptAt,
  type DeliveryResult,
  type RetryPolicy,
  type TemplateVariables,
} from '#webhooks';
import { sendEmail } from './channels/email.ts';
import { buildOutgoing, channelOrigin } from './channels/outgoing.ts';
import { channelWants, channelWantsLocation } from './channels.ts';
import { DEFAULT_CHANNEL_ENDPOINTS, type ChannelEndpoints } from './config.ts';
import { deterministicId } from './ids.ts';
import { eachInLanes, KeySlots } from './lanes.ts';
import { locationTemplateVariables } from './location-variables.ts';
import type { Attempt, Delivery, DeliveryStore } from './store.ts';
import { checkContext, templateVariablesFor, type CheckContext } from './variables.ts';

export interface DispatcherOptions {
  readModels: ReadModels;
  store: DeliveryStore;
  box: SecretBox;
  log: Logger;
  metrics?: Registry;
  timeoutMs: number;
  retry: RetryPolicy;
  allowPrivate: boolean;
  userAgent: string;
  publicUrl: string;
  region: string;
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
}

/** One fresh delivery to attempt, with what it renders. */
interface Candidate {
  delivery: Delivery;
  view: AlertChannelView;
  context?: CheckContext;
  variables: Promise<TemplateVariables>;
}

export interface AttemptOutcome {
  delivery: Delivery;
  attempt: Attempt;
  result: DeliveryResult;
  request: { url: string; method: string; body: string };
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
  private readonly log: Logger;
  private readonly leaseMs: number;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  /** Ends the retry loop's current sleep. */
  private wakeSleep: () => void = () => undefined;
  /** When the retry loop's sleep ends; Infinity while it is awake (so a wake is never lost). */
  private sleepingUntil = Infinity;
  /** The retry loop sleeps because its slots are taken: a finished retry wakes it. */
  private sleepingForSlots = false;
  /** A wake that came while the loop was not asleep: the loop looks again instead of sleeping. */
  private woken = false;
  private readonly attemptsCounter: Counter | undefined;
  /** Retries in flight; the loop claims more only as slots free up. */
  private readonly retrying = new Set<Promise<void>>();
  /** Records of retries whose response is in, waiting for their group commit; stop() waits for them. */
  private readonly retryRecords = new Set<Promise<void>>();
  /** Decrypted channel secrets by sealed value: decryption costs about as much as signing. */
  private readonly secrets = new Map<string, string>();
  /**
   * In-flight attempts per receiver origin, fresh and retries together: without it the retry
   * loop's own slots came on top of the fresh lanes' (about 96 at once to one receiver).
   */
  private readonly originSlots: KeySlots;

  constructor(private readonly options: DispatcherOptions) {
    this.log = options.log.child({ component: 'dispatcher' });
    this.leaseMs = options.timeoutMs + 10_000;
    this.attemptsCounter = options.metrics
      ? new Counter({
          name: 'vigil_webhook_attempts_total',
          help: 'Webhook attempts by outcome',
          labelNames: ['outcome'],
          registers: [options.metrics],
        })
      : undefined;
    this.originSlots = new KeySlots(options.perOrigin ?? options.concurrency ?? 32);
    this.endpoints = options.channels ?? DEFAULT_CHANNEL_ENDPOINTS;
  }

  private readonly endpoints: ChannelEndpoints;

  /** The fresh path: one delivery per interested channel per alert, each created once. */
  async handleAlerts(events: AlertEvent[]): Promise<void> {
    // One look-up per check and per account for the whole batch, not one per delivery.
    const contexts = new Map<string, Promise<CheckContext | null>>();
    const subscribed = new Map<string, Promise<AlertChannelView[]>>();
    const variables = new Map<string, Promise<TemplateVariables>>();
    const candidates: { delivery: Delivery; view: AlertChannelView; context: CheckContext; event: AlertEvent }[] = [];
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
      for (const view of channels) {
        const now = Date.now();
        candidates.push({
          view,
          context,
          event,
          delivery: {
            id: deterministicId(event.alertId, view.channel.id),
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
    const unseen = new Set(
      (await this.options.store.unseen(candidates.map((c) => c.delivery))).map((delivery) => delivery.id),
    );
    const fresh = candidates
      .filter((candidate) => unseen.has(candidate.delivery.id))
      .map((candidate) => {
        const key = candidate.event.alertId;
        if (!variables.has(key))
          variables.set(
            key,
            templateVariablesFor(this.options.readModels, candidate.event, candidate.context, this.options.publicUrl),
          );
        return { ...candidate, variables: variables.get(key)! };
      });
    await this.attemptFresh(fresh);
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
            id: deterministicId(alert.alertId, view.channel.id),
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
    const unseen = new Set(
      (await this.options.store.unseen(candidates.map((c) => c.delivery))).map((delivery) => delivery.id),
    );
    await this.attemptFresh(candidates.filter((candidate) => unseen.has(candidate.delivery.id)));
  }

  /** First attempts, in lanes per receiver; resolves once every attempt made is durably recorded. */
  private async attemptFresh(fresh: Candidate[]): Promise<void> {
    const concurrency = this.options.concurrency ?? 32;
    const records: Promise<void>[] = [];
    const attempted = eachInLanes(
      fresh,
      {
        limit: concurrency,
        perKey: this.originSlots.perKey,
        key: (item) => channelOrigin(item.view.channel, this.endpoints),
        slots: this.originSlots,
      },
      async (item) => {
        await this.attemptOnce(item.delivery, item.view, item.context, await item.variables, false, records);
      },
    );
    // The batch is acknowledged (this resolves) only once every attempt made is durably recorded.
    const [sent] = await Promise.allSettled([attempted]);
    // Every attempt of the batch is made: its last records need not wait out the window.
    this.options.store.flushPending();
    const written = await Promise.allSettled(records);
    const failure = [sent!, ...written].find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** One attempt, recorded with the delivery's next state in one write. */
  attempt(
    delivery: Delivery,
    channelOverride?: AlertChannelView,
    contextOverride?: CheckContext,
    variablesOverride?: TemplateVariables,
  ): Promise<AttemptOutcome> {
    return this.attemptOnce(delivery, channelOverride, contextOverride, variablesOverride, true);
  }

  /**
   * `queued`: whether the delivery may have an entry in the retry queue (not a fresh first attempt).
   * `records`: when given, the record's write is added to it instead of awaited, so the slot is
   * free for the next delivery while the record waits for its group commit; the caller awaits them.
   */
  private async attemptOnce(
    delivery: Delivery,
    channelOverride: AlertChannelView | undefined,
    contextOverride: CheckContext | undefined,
    variablesOverride: TemplateVariables | undefined,
    queued: boolean,
    records?: Promise<void>[],
  ): Promise<AttemptOutcome> {
    const started = new Date();
    const channel = channelOverride ?? (await this.options.readModels.alertChannel(delivery.channelId));
    const subject = channel ? await this.subjectOf(delivery, contextOverride, variablesOverride) : null;
    let result: DeliveryResult;
    let request = { url: '', method: 'POST', body: '' };
    if (!channel || !subject || 'gone' in subject) {
      result = {
        outcome: 'refused',
        error: !channel ? 'the alert channel was deleted' : (subject as { gone: string }).gone,
        durationMs: 0,
        responseBody: '',
        requestHeaders: {},
      };
    } else {
      try {
        const variables = await subject.variables();
        const outgoing = buildOutgoing(channel.channel, variables, {
          endpoints: this.endpoints,
          publicUrl: this.options.publicUrl,
          region: this.options.region,
          now: started,
          open: (sealed) => this.secret(sealed),
        });
        if (outgoing.kind === 'email') {
          const { message } = outgoing;
          request = { url: `mailto:${message.to}`, method: 'SMTP', body: message.text };
          result = await sendEmail(message, {
            smtpUrl: this.endpoints.smtpUrl,
            from: this.endpoints.smtpFrom,
            allowPrivate: this.options.allowPrivate,
            timeoutMs: this.options.timeoutMs,
            deliveryId: delivery.id,
          });
        } else {
          const { message } = outgoing;
          // What is shown back (the test send's echo) has the service's secrets masked.
          request = { url: message.shown.url, method: message.method, body: message.shown.body };
          result = await deliverWebhook(
            { url: message.url, method: message.method, headers: message.headers, body: message.body },
            {
              timeoutMs: this.options.timeoutMs,
              allowPrivate: this.options.allowPrivate,
              userAgent: this.options.userAgent,
              deliveryId: delivery.id,
              secret: outgoing.signingSecret,
              now: started,
            },
          );
        }
      } catch (error) {
        result = {
          outcome: 'refused',
          error: `could not render: ${error instanceof Error ? error.message : String(error)}`,
          durationMs: 0,
          responseBody: '',
          requestHeaders: {},
        };
      }
    }
    const number = delivery.attempts + 1;
    const finished = Date.now();
    const retryAt =
      result.outcome === 'failed' && !delivery.test
        ? nextAttemptAt(number, this.options.retry, new Date(finished))
        : null;
    const status =
      result.outcome === 'delivered'
        ? 'delivered'
        : result.outcome === 'refused'
          ? 'refused'
          : retryAt
            ? 'pending'
            : 'failed';
    const next: Delivery = {
      ...delivery,
      attempts: number,
      status,
      nextAttemptAt: retryAt?.getTime() ?? null,
      updatedAt: finished,
      lastError: result.error ?? null,
    };
    const attempt: Attempt = {
      deliveryId: delivery.id,
      channelId: delivery.channelId,
      checkId: delivery.checkId,
      alertType: delivery.alertType,
      attempt: number,
      at: started.toISOString(),
      durationMs: result.durationMs,
      outcome: result.outcome,
      statusCode: result.statusCode ?? null,
      error: result.error ?? null,
      responseBody: result.responseBody,
      test: delivery.test,
      nextAttemptAt: retryAt?.toISOString() ?? null,
    };
    const recorded = this.options.store.recordAttempt(next, attempt, finished, queued, !records).then(() => {
      // A retry due sooner than the loop means to look again.
      if (status === 'pending' && next.nextAttemptAt! < this.sleepingUntil) this.wake();
    });
    if (records) {
      // Handled here so a failed write is not an unhandled rejection before the caller awaits it.
      recorded.catch(() => undefined);
      records.push(recorded);
    } else await recorded;
    this.attemptsCounter?.inc({ outcome: result.outcome });
    const entry = {
      deliveryId: delivery.id,
      channelId: delivery.channelId,
      type: channel?.channel.type,
      attempt: number,
      outcome: result.outcome,
      statusCode: result.statusCode,
      error: result.error,
    };
    if (result.outcome === 'refused') this.log.warn(entry, 'webhook delivery refused');
    else if (result.outcome === 'failed')
      this.log.info(
        entry,
        status === 'failed' ? 'webhook delivery failed for good' : 'webhook attempt failed; retry scheduled',
      );
    else this.log.debug(entry, 'webhook delivered');
    return { delivery: next, attempt, result, request };
  }

  /** What a delivery renders, or why it cannot: its check or location is gone. */
  private async subjectOf(
    delivery: Delivery,
    contextOverride: CheckContext | undefined,
    variablesOverride: TemplateVariables | undefined,
  ): Promise<{ variables: () => Promise<TemplateVariables> } | { gone: string }> {
    if (variablesOverride) return { variables: () => Promise.resolve(variablesOverride) };
    const alert = delivery.alert;
    if ('subject' in alert) {
      const location = await this.options.locations?.location(alert.locationId);
      if (!location || location.accountId !== alert.accountId) return { gone: 'the private location was deleted' };
      return {
        variables: () => locationTemplateVariables(this.options.readModels, alert, location, this.options.publicUrl),
      };
    }
    const context = contextOverride ?? (await checkContext(this.options.readModels, delivery.checkId));
    if (!context) return { gone: 'the check was deleted' };
    return { variables: () => templateVariablesFor(this.options.readModels, alert, context, this.options.publicUrl) };
  }

  /** Starts the retry loop. */
  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    this.loop = this.retryLoop(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    this.loop = undefined;
  }

  private secret(sealed: string): string {
    let secret = this.secrets.get(sealed);
    if (secret === undefined) {
      secret = this.options.box.decrypt(sealed);
      // A rotated secret leaves its old sealed value behind: keep the map from growing without end.
      if (this.secrets.size >= 10_000) this.secrets.clear();
      this.secrets.set(sealed, secret);
    }
    return secret;
  }

  /**
   * Claims due retries as slots free up (at least half of them, so claims stay batched), reads
   * them in one look-up and attempts them; each record joins the group commit.
   */
  private async retryLoop(signal: AbortSignal): Promise<void> {
    const idleMs = this.options.idleMs ?? 1000;
    const limit = this.options.concurrency ?? 32;
    while (!signal.aborted) {
      this.woken = false;
      try {
        const free = limit - this.retrying.size;
        if (free >= Math.ceil(limit / 2)) {
          const ids = await this.options.store.claimDue(Date.now(), this.leaseMs, free);
          if (ids.length > 0) {
            const deliveries = await this.options.store.getMany(ids);
            ids.forEach((id, i) => this.track(this.retry(id, deliveries[i] ?? null)));
            continue;
          }
        }
        const due = free >= Math.ceil(limit / 2) ? await this.options.store.nextDue() : null;
        const wait = due === null ? idleMs : Math.min(idleMs, Math.max(5, due - Date.now()));
        if (this.woken) continue;
        const woken = new AbortController();
        this.wakeSleep = () => woken.abort();
        this.sleepingUntil = Date.now() + wait;
        this.sleepingForSlots = free < Math.ceil(limit / 2);
        await sleep(wait, AbortSignal.any([signal, woken.signal]));
        this.sleepingUntil = Infinity;
        this.sleepingForSlots = false;
        this.wakeSleep = () => undefined;
      } catch (error) {
        this.log.error({ err: error }, 'retry loop failed; trying again');
        await sleep(idleMs, signal);
      }
    }
    await Promise.allSettled([...this.retrying]);
    await Promise.allSettled([...this.retryRecords]);
  }

  /** Ends the retry loop's sleep, or its next one: a retry was scheduled, or slots came free. */
  private wake(): void {
    this.woken = true;
    this.wakeSleep();
  }

  private track(work: Promise<void>): void {
    const limit = this.options.concurrency ?? 32;
    const settled = work
      .catch((error: unknown) => this.log.error({ err: error }, 'retry attempt failed; the lease brings it back'))
      .finally(() => {
        this.retrying.delete(settled);
        const awake = this.sleepingUntil === Infinity;
        if ((awake || this.sleepingForSlots) && limit - this.retrying.size >= Math.ceil(limit / 2)) this.wake();
      });
    this.retrying.add(settled);
  }

  /**
   * A retry frees its slot once the response is in, as a fresh attempt does; its record joins
   * the group commit. Until that record lands the delivery's lease keeps it from being claimed
   * again, and a crash before it lands brings it back when the lease ends (same webhook-id).
   */
  private async retry(id: string, delivery: Delivery | null): Promise<void> {
    if (!delivery || delivery.status !== 'pending') return this.options.store.dequeue(id);
    const records: Promise<void>[] = [];
    // The channel is read first so the retry can wait for a slot on its receiver's origin.
    const channel = (await this.options.readModels.alertChannel(delivery.channelId)) ?? undefined;
    const origin = channel ? channelOrigin(channel.channel, this.endpoints) : null;
    if (origin !== null) await this.originSlots.take(origin);
    try {
      await this.attemptOnce(delivery, channel, undefined, undefined, true, records);
    } finally {
      if (origin !== null) this.originSlots.release(origin);
    }
    for (const record of records) {
      const settled = record
        .catch((error: unknown) =>
          this.log.error({ err: error }, 'recording a retry attempt failed; the lease brings it back'),
        )
        .finally(() => this.retryRecords.delete(settled));
      this.retryRecords.add(settled);
    }
  }
}
