import type { AlertChannel } from '#domain';
import { renderTemplates, type TemplateVariables } from '#webhooks';
import { OPSGENIE_API_URLS, type ChannelEndpoints } from '../config.ts';
import { originOf } from '../lanes.ts';
import { emailMessage, type EmailMessage } from './email-message.ts';
import {
  discordMessage,
  msTeamsMessage,
  opsgenieMessage,
  pagerDutyMessage,
  slackMessage,
  telegramMessage,
  type HttpMessage,
} from './payloads.ts';
import { alertSummary } from './summary.ts';

/** What one attempt sends: an HTTP request (webhooks and the hosted services) or an email. */
export type Outgoing =
  | { kind: 'http'; message: Omit<HttpMessage, 'method'> & { method: string }; signingSecret: string | null }
  | { kind: 'email'; message: EmailMessage };

export interface OutgoingContext {
  endpoints: ChannelEndpoints;
  publicUrl: string;
  region: string;
  now: Date;
  /** Opens a sealed secret. */
  open: (sealed: string) => string;
}

/** Builds one channel's message for one alert; a webhook's templates render here as before. */
export function buildOutgoing(channel: AlertChannel, variables: TemplateVariables, context: OutgoingContext): Outgoing {
  const summary = () => alertSummary(variables.event, context.publicUrl);
  const http = (message: HttpMessage): Outgoing => ({ kind: 'http', message, signingSecret: null });
  const { endpoints } = context;
  switch (channel.type) {
    case 'WEBHOOK': {
      const rendered = renderTemplates(channel.config, variables, { now: context.now, region: context.region });
      const sealed = channel.config.webhookSecretEncrypted;
      return {
        kind: 'http',
        message: { ...rendered, shown: { url: rendered.url, body: rendered.body } },
        signingSecret: sealed ? context.open(sealed) : null,
      };
    }
    case 'EMAIL':
      return { kind: 'email', message: emailMessage(channel.config.address, summary()) };
    case 'SLACK':
      return http(slackMessage(channel.config.url, channel.config.channel, summary()));
    case 'MSTEAMS':
      return http(msTeamsMessage(channel.config.url, summary()));
    case 'DISCORD':
      return http(discordMessage(channel.config.url, summary()));
    case 'TELEGRAM':
      return http(
        telegramMessage(
          endpoints.telegramApiUrl,
          context.open(channel.config.botTokenEncrypted),
          channel.config.chatId,
          summary(),
        ),
      );
    case 'PAGERDUTY':
      return http(
        pagerDutyMessage(
          endpoints.pagerDutyEventsUrl,
          context.open(channel.config.serviceKeyEncrypted),
          channel.config.serviceName,
          summary(),
        ),
      );
    case 'OPSGENIE':
      return http(
        opsgenieMessage(
          opsgenieBase(channel.config.region, endpoints),
          context.open(channel.config.apiKeyEncrypted),
          channel.config.priority,
          summary(),
        ),
      );
  }
}

function opsgenieBase(region: 'US' | 'EU', endpoints: ChannelEndpoints): string {
  return endpoints.opsgenieApiUrl ?? OPSGENIE_API_URLS[region];
}

/** Where a channel's deliveries go, for the per-receiver limit: one origin per service or relay. */
export function channelOrigin(channel: AlertChannel, endpoints: ChannelEndpoints): string {
  switch (channel.type) {
    case 'WEBHOOK':
    case 'SLACK':
    case 'MSTEAMS':
    case 'DISCORD':
      return originOf(channel.config.url);
    case 'EMAIL':
      return `smtp:${endpoints.smtpUrl === null ? '' : originOf(endpoints.smtpUrl.replace(/^smtps?:/, 'http:'))}`;
    case 'PAGERDUTY':
      return originOf(endpoints.pagerDutyEventsUrl);
    case 'OPSGENIE':
      return originOf(opsgenieBase(channel.config.region, endpoints));
    case 'TELEGRAM':
      return originOf(endpoints.telegramApiUrl);
  }
}
