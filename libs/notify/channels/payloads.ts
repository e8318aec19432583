import { SECRET_MASK } from '#domain';
import { escapeHtml, facts, type AlertSummary } from './summary.ts';

/** One HTTP request to a hosted service, and what of it may be shown back (secrets masked). */
export interface HttpMessage {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  shown: { url: string; body: string };
}

const json = { 'content-type': 'application/json' };
const colors: Record<AlertSummary['kind'], { hex: string; int: number; teams: string }> = {
  failure: { hex: '#d93f3f', int: 0xd93f3f, teams: 'attention' },
  degraded: { hex: '#e5a50a', int: 0xe5a50a, teams: 'warning' },
  ssl: { hex: '#e5a50a', int: 0xe5a50a, teams: 'warning' },
  recovery: { hex: '#2e9b48', int: 0x2e9b48, teams: 'good' },
};
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

function post(url: string, payload: unknown, headers: Record<string, string> = {}, shown?: unknown): HttpMessage {
  const body = JSON.stringify(payload);
  return {
    url,
    method: 'POST',
    headers: { ...json, ...headers },
    body,
    shown: { url, body: shown ? JSON.stringify(shown) : body },
  };
}

/** Slack's mrkdwn treats &, < and > as markup. */
const slackText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Slack incoming webhook: Block Kit blocks, and `text` for notifications and old clients. */
export function slackMessage(url: string, channel: string | null, summary: AlertSummary): HttpMessage {
  const details = summary.error ? `${summary.what}\n>${slackText(cut(summary.error, 2000))}` : summary.what;
  const blocks = [
    { type: 'header', text: { type: 'plain_text', text: cut(summary.title, 150), emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: slackText(details) } },
    {
      type: 'section',
      fields: facts(summary)
        .filter(([label]) => label !== 'Error')
        .slice(0, 10)
        .map(([label, value]) => ({ type: 'mrkdwn', text: `*${label}*\n${slackText(cut(value, 1900))}` })),
    },
    {
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'View result' }, url: summary.link }],
    },
  ];
  return post(url, { text: `${summary.title}: ${summary.what}`, ...(channel ? { channel } : {}), blocks });
}

/** A Microsoft Teams Workflows webhook: a message carrying one Adaptive Card. */
export function msTeamsMessage(url: string, summary: AlertSummary): HttpMessage {
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      {
        type: 'TextBlock',
        text: summary.title,
        weight: 'Bolder',
        size: 'Medium',
        wrap: true,
        color: colors[summary.kind].teams,
      },
      { type: 'TextBlock', text: summary.what, wrap: true },
      { type: 'FactSet', facts: facts(summary).map(([title, value]) => ({ title, value })) },
    ],
    actions: [{ type: 'Action.OpenUrl', title: 'View result', url: summary.link }],
  };
  return post(url, {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  });
}

/** A Discord webhook: `content` plus one embed. */
export function discordMessage(url: string, summary: AlertSummary): HttpMessage {
  return post(url, {
    content: cut(summary.title, 2000),
    embeds: [
      {
        title: cut(summary.title, 256),
        description: cut(summary.what, 4096),
        url: summary.link,
        color: colors[summary.kind].int,
        timestamp: summary.when,
        fields: facts(summary)
          .slice(0, 25)
          .map(([name, value]) => ({ name, value: cut(value, 1024), inline: name !== 'Error' })),
      },
    ],
    allowed_mentions: { parse: [] },
  });
}

/** Telegram's sendMessage with parse_mode=HTML; the bot token is in the path, masked when shown. */
export function telegramMessage(apiUrl: string, botToken: string, chatId: string, summary: AlertSummary): HttpMessage {
  const lines = [
    `<b>${escapeHtml(summary.title)}</b>`,
    escapeHtml(summary.what),
    '',
    ...facts(summary).map(([label, value]) => `<b>${escapeHtml(label)}:</b> ${escapeHtml(cut(value, 500))}`),
    '',
    `<a href="${escapeHtml(summary.link)}">View result</a>`,
  ];
  const base = apiUrl.replace(/\/$/, '');
  const message = post(`${base}/bot${botToken}/sendMessage`, {
    chat_id: chatId,
    text: cut(lines.join('\n'), 4096),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  });
  return { ...message, shown: { ...message.shown, url: `${base}/bot${SECRET_MASK}/sendMessage` } };
}

/**
 * One incident per check (the alerter's state is per check): the failure or degraded alert
 * triggers it, a reminder triggers it again under the same key (PagerDuty de-duplicates), and
 * the recovery resolves it. SSL expiry is an incident of its own, and so is a silence (NO_DATA).
 */
export function incidentKey(summary: AlertSummary): string {
  if (summary.kind === 'ssl') return `vigil-${summary.checkId}-ssl`;
  return summary.silence ? `vigil-${summary.checkId}-no-data` : `vigil-${summary.checkId}`;
}

/** PagerDuty Events API v2: trigger, or resolve on recovery; the routing key is masked when shown. */
export function pagerDutyMessage(
  eventsUrl: string,
  routingKey: string,
  serviceName: string | null,
  summary: AlertSummary,
): HttpMessage {
  const dedupKey = incidentKey(summary);
  const payload = summary.resolves
    ? { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey }
    : {
        routing_key: routingKey,
        event_action: 'trigger',
        dedup_key: dedupKey,
        payload: {
          summary: cut(`${summary.title}${summary.error ? `: ${summary.error}` : ''}`, 1024),
          source: summary.location ?? 'vigil',
          severity: summary.kind === 'failure' ? 'critical' : 'warning',
          timestamp: summary.when,
          component: summary.checkName,
          ...(summary.group ? { group: summary.group } : {}),
          class: summary.kind,
          custom_details: Object.fromEntries(facts(summary)),
        },
        client: serviceName ? `Vigil (${serviceName})` : 'Vigil',
        client_url: summary.link,
        links: [{ href: summary.link, text: 'View result in Vigil' }],
      };
  return post(eventsUrl, payload, {}, { ...payload, routing_key: SECRET_MASK });
}

/** Opsgenie's alerts API: create (alias = the incident key), or close by alias on recovery. */
export function opsgenieMessage(apiUrl: string, apiKey: string, priority: string, summary: AlertSummary): HttpMessage {
  const base = apiUrl.replace(/\/$/, '');
  const alias = incidentKey(summary);
  const auth = { authorization: `GenieKey ${apiKey}` };
  if (summary.resolves)
    return post(
      `${base}/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`,
      { source: 'Vigil', note: summary.what },
      auth,
    );
  return post(
    `${base}/v2/alerts`,
    {
      message: cut(summary.title, 130),
      alias,
      description: cut([summary.what, summary.error, summary.link].filter(Boolean).join('\n\n'), 15000),
      priority,
      source: 'Vigil',
      entity: cut(summary.checkName, 512),
      tags: summary.tags.slice(0, 20).map((tag) => cut(tag, 50)),
      details: Object.fromEntries(facts(summary).map(([label, value]) => [label, cut(value, 8000)])),
    },
    auth,
  );
}
