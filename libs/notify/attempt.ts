import { Counter, type Registry } from 'prom-client';
import type { Logger, SecretBox } from '#core';
import type { AlertChannelView, PrivateLocationReads, ReadModels } from '#readmodels';
import { deliverWebhook, type DeliveryResult, type RetryPolicy, type TemplateVariables } from '#webhooks';
import { attemptRecord } from './attempt-record.ts';
import { sendEmail } from './channels/email.ts';
import { buildOutgoing } from './channels/outgoing.ts';
import type { ChannelEndpoints } from './config.ts';
import { locationTemplateVariables } from './location-variables.ts';
import type { Attempt, Delivery, DeliveryStore } from './store.ts';
import { checkContext, templateVariablesFor, type CheckContext } from './variables.ts';

export interface AttemptOutcome {
  delivery: Delivery;
  attempt: Attempt;
  result: DeliveryResult;
  request: { url: string; method: string; body: string };
}

/** What a delivery renders, or why it cannot: its check or location is gone. */
export type Subject = { variables: () => Promise<TemplateVariables> } | { gone: string };

/** What an attempt may be given instead of reading it: the channel, and the alert's subject. */
export interface AttemptInputs {
  channel?: AlertChannelView | null;
  context?: CheckContext;
  variables?: TemplateVariables;
  subject?: Promise<Subject>;
}

export interface AttempterOptions {
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
  endpoints: ChannelEndpoints;
  locations?: PrivateLocationReads;
  /** A record left the delivery pending with its next attempt at this time (the retry loop wakes). */
  onScheduled: (nextAttemptAt: number) => void;
}

const ignore = (): void => undefined;

const refused = (error: string): DeliveryResult => ({
  outcome: 'refused',
  error,
  durationMs: 0,
  responseBody: '',
  requestHeaders: {},
});

/** One attempt of one delivery: render, sign, send, and the record of it with the delivery's next state. */
export class Attempter {
  private readonly attemptsCounter: Counter | undefined;
  /** Decrypted channel secrets by sealed value: decryption costs about as much as signing. */
  private readonly secrets = new Map<string, string>();
  /** Opens a sealed channel secret (made once: every attempt passes it on). */
  private readonly open = (sealed: string): string => this.secret(sealed);

  constructor(private readonly options: AttempterOptions) {
    this.attemptsCounter = options.metrics
      ? new Counter({
          name: 'vigil_webhook_attempts_total',
          help: 'Webhook attempts by outcome',
          labelNames: ['outcome'],
          registers: [options.metrics],
        })
      : undefined;
  }

  /**
   * `queued`: whether the delivery may have an entry in the retry queue (not a fresh first attempt).
   * `records`: when given, the record's write is added to it instead of awaited, so the slot is
   * free for the next delivery while the record waits for its group commit; the caller awaits them.
   */
  async attempt(
    delivery: Delivery,
    inputs: AttemptInputs,
    queued: boolean,
    records?: Promise<void>[],
  ): Promise<AttemptOutcome> {
    const started = new Date();
    const channel =
      inputs.channel !== undefined ? inputs.channel : await this.options.readModels.alertChannel(delivery.channelId);
    // Given variables (the fresh path, a test send) need no subject: no look-up, no promise.
    const given = inputs.variables;
    const subject = channel && !given ? await (inputs.subject ?? this.subjectOf(delivery, inputs.context)) : null;
    let result: DeliveryResult;
    let request = { url: '', method: 'POST', body: '' };
    if (!channel) result = refused('the alert channel was deleted');
    else if (!given && (!subject || 'gone' in subject)) result = refused((subject as { gone: string }).gone);
    else {
      try {
        const variables = given ?? (await (subject as Exclude<Subject, { gone: string }>).variables());
        ({ result, request } = await this.send(delivery, channel, variables, started));
      } catch (error) {
        result = refused(`could not render: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const finished = Date.now();
    const { next, attempt } = attemptRecord(delivery, result, started, finished, this.options.retry);
    if (!records) {
      await this.record(next, attempt, result, finished, queued, true, channel?.channel.type);
      return { delivery: next, attempt, result, request };
    }
    // The record is built after the requests waiting to go out are written. undici writes a
    // request on a reused keep-alive socket only in the event loop's check phase, after every
    // response that arrived together was handled; building each record first held all of the
    // next requests back by that much, and the receiver sat idle meanwhile (then the dispatcher,
    // waiting for its answers). The caller's slot is free as soon as this returns; the batch
    // still waits for every record to be durable.
    const recorded = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        try {
          this.record(next, attempt, result, finished, queued, false, channel?.channel.type).then(resolve, reject);
        } catch (error) {
          reject(error);
        }
      });
    });
    // Handled here so a failed write is not an unhandled rejection before the caller awaits it.
    recorded.catch(ignore);
    records.push(recorded);
    return { delivery: next, attempt, result, request };
  }

  /** The attempt's record, with the delivery's next state; resolves once it is durable. */
  private record(
    next: Delivery,
    attempt: Attempt,
    result: DeliveryResult,
    finished: number,
    queued: boolean,
    urgent: boolean,
    type: string | undefined,
  ): Promise<void> {
    const written = this.options.store.recordAttempt(next, attempt, finished, queued, urgent);
    this.attemptsCounter?.inc({ outcome: result.outcome });
    this.logOutcome(next, attempt, result, type);
    // Only a record that schedules a retry wakes the retry loop (most attempts are delivered).
    const retryAt = next.status === 'pending' ? next.nextAttemptAt : null;
    return retryAt === null ? written : written.then(() => this.options.onScheduled(retryAt));
  }

  /** What a delivery renders, or why it cannot: its check or location is gone. */
  async subjectOf(
    delivery: Delivery,
    contextOverride?: CheckContext,
    variablesOverride?: TemplateVariables,
  ): Promise<Subject> {
    const { readModels, publicUrl } = this.options;
    if (variablesOverride) return { variables: () => Promise.resolve(variablesOverride) };
    const alert = delivery.alert;
    if ('subject' in alert) {
      const location = await this.options.locations?.location(alert.locationId);
      if (!location || location.accountId !== alert.accountId) return { gone: 'the private location was deleted' };
      return { variables: () => locationTemplateVariables(readModels, alert, location, publicUrl) };
    }
    const context = contextOverride ?? (await checkContext(readModels, delivery.checkId));
    if (!context) return { gone: 'the check was deleted' };
    return { variables: () => templateVariablesFor(readModels, alert, context, publicUrl) };
  }

  private async send(
    delivery: Delivery,
    channel: AlertChannelView,
    variables: TemplateVariables,
    started: Date,
  ): Promise<{ result: DeliveryResult; request: AttemptOutcome['request'] }> {
    const { endpoints, timeoutMs, allowPrivate } = this.options;
    const outgoing = buildOutgoing(channel.channel, variables, {
      endpoints,
      publicUrl: this.options.publicUrl,
      region: this.options.region,
      now: started,
      open: this.open,
    });
    if (outgoing.kind === 'email') {
      const { message } = outgoing;
      const request = { url: `mailto:${message.to}`, method: 'SMTP', body: message.text };
      const result = await sendEmail(message, {
        smtpUrl: endpoints.smtpUrl,
        from: endpoints.smtpFrom,
        allowPrivate,
        timeoutMs,
        deliveryId: delivery.id,
      });
      return { result, request };
    }
    const { message } = outgoing;
    // What is shown back (the test send's echo) has the service's secrets masked.
    const request = { url: message.shown.url, method: message.method, body: message.shown.body };
    const result = await deliverWebhook(
      { url: message.url, method: message.method, headers: message.headers, body: message.body },
      {
        timeoutMs,
        allowPrivate,
        userAgent: this.options.userAgent,
        deliveryId: delivery.id,
        secret: outgoing.signingSecret,
        now: started,
      },
    );
    return { result, request };
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

  private logOutcome(next: Delivery, attempt: Attempt, result: DeliveryResult, type: string | undefined): void {
    const log = this.options.log;
    // Most attempts are delivered and logged at debug: no entry is built for a level that is off.
    if (result.outcome === 'delivered' && !log.isLevelEnabled('debug')) return;
    const entry = {
      deliveryId: next.id,
      channelId: next.channelId,
      type,
      attempt: attempt.attempt,
      outcome: result.outcome,
      statusCode: result.statusCode,
      error: result.error,
    };
    if (result.outcome === 'refused') log.warn(entry, 'webhook delivery refused');
    else if (result.outcome === 'failed')
      log.info(
        entry,
        next.status === 'failed' ? 'webhook delivery failed for good' : 'webhook attempt failed; retry scheduled',
      );
    else log.debug(entry, 'webhook delivered');
  }
}
