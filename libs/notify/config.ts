import { z } from 'zod';
import { env } from '#core';

/**
 * Where the channel types other than webhooks are delivered: read by the dispatcher, and by the
 * API for test messages (each app's config module spreads this).
 */
export const channelEnv = {
  /** SMTP relay for EMAIL channels, with any user and password in it: smtp:// (STARTTLS when offered) or smtps://. */
  VIGIL_SMTP_URL: env.url(['smtp', 'smtps']).optional(),
  /** The From of alert emails, e.g. "Vigil <alerts@example.com>". */
  VIGIL_SMTP_FROM: z.string().trim().min(3).max(320).default('Vigil <alerts@localhost>'),
  VIGIL_PAGERDUTY_EVENTS_URL: env.url(['https', 'http']).default('https://events.pagerduty.com/v2/enqueue'),
  /** Replaces both regions' Opsgenie API base (https://api.opsgenie.com, https://api.eu.opsgenie.com). */
  VIGIL_OPSGENIE_API_URL: env.url(['https', 'http']).optional(),
  VIGIL_TELEGRAM_API_URL: env.url(['https', 'http']).default('https://api.telegram.org'),
};

/** The settings the channel senders use. */
export interface ChannelEndpoints {
  smtpUrl: string | null;
  smtpFrom: string;
  pagerDutyEventsUrl: string;
  /** Null: each channel's region picks the Opsgenie API. */
  opsgenieApiUrl: string | null;
  telegramApiUrl: string;
}

export const OPSGENIE_API_URLS = { US: 'https://api.opsgenie.com', EU: 'https://api.eu.opsgenie.com' } as const;

export const DEFAULT_CHANNEL_ENDPOINTS: ChannelEndpoints = {
  smtpUrl: null,
  smtpFrom: 'Vigil <alerts@localhost>',
  pagerDutyEventsUrl: 'https://events.pagerduty.com/v2/enqueue',
  opsgenieApiUrl: null,
  telegramApiUrl: 'https://api.telegram.org',
};

export function channelEndpoints(config: {
  VIGIL_SMTP_URL?: string | undefined;
  VIGIL_SMTP_FROM: string;
  VIGIL_PAGERDUTY_EVENTS_URL: string;
  VIGIL_OPSGENIE_API_URL?: string | undefined;
  VIGIL_TELEGRAM_API_URL: string;
}): ChannelEndpoints {
  return {
    smtpUrl: config.VIGIL_SMTP_URL ?? null,
    smtpFrom: config.VIGIL_SMTP_FROM,
    pagerDutyEventsUrl: config.VIGIL_PAGERDUTY_EVENTS_URL,
    opsgenieApiUrl: config.VIGIL_OPSGENIE_API_URL ?? null,
    telegramApiUrl: config.VIGIL_TELEGRAM_API_URL,
  };
}
