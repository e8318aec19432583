import type { AlertEventVariables } from '#webhooks';

export type AlertKind = 'failure' | 'recovery' | 'degraded' | 'ssl';

/** What every channel type says about one alert, in words: the defaults Checkly's messages have. */
export interface AlertSummary {
  kind: AlertKind;
  /** Whether the alert ends an incident (a recovery): PagerDuty resolves, Opsgenie closes. */
  resolves: boolean;
  /** NO_DATA and its recovery: an incident of their own, so its end never closes a failure's. */
  silence: boolean;
  title: string;
  /** What the alert is about, as the facts list labels it: "Check", or "Private location". */
  subject: string;
  checkName: string;
  checkId: string;
  /** One sentence: what happened. */
  what: string;
  error: string | null;
  /** ISO 8601, UTC. */
  when: string;
  location: string | null;
  /** The result in the console. */
  link: string;
  /** The result's JSON in the API. */
  apiLink: string | null;
  responseTime: number | null;
  statusCode: number | null;
  tags: string[];
  group: string | null;
  isReminder: boolean;
}

const kinds: Record<AlertEventVariables['ALERT_TYPE'], AlertKind> = {
  ALERT_FAILURE: 'failure',
  ALERT_RECOVERY: 'recovery',
  ALERT_DEGRADED: 'degraded',
  ALERT_DEGRADED_RECOVERY: 'recovery',
  ALERT_SSL: 'ssl',
  // A silent check is a warning, not an outage: nothing says it is down.
  ALERT_NO_DATA: 'degraded',
  ALERT_NO_DATA_RECOVERY: 'recovery',
  // A dark location stops its checks' runs: an outage of the monitoring, not of the targets.
  ALERT_LOCATION_UNAVAILABLE: 'failure',
  ALERT_LOCATION_RECOVERY: 'recovery',
};

const isLocation = (event: AlertEventVariables) =>
  event.ALERT_TYPE === 'ALERT_LOCATION_UNAVAILABLE' || event.ALERT_TYPE === 'ALERT_LOCATION_RECOVERY';

function whatHappened(event: AlertEventVariables): string {
  const name = event.CHECK_NAME;
  switch (event.ALERT_TYPE) {
    case 'ALERT_FAILURE':
      return event.IS_REMINDER
        ? `${name} is still failing (reminder ${event.REMINDER_SEQUENCE}).`
        : `${name} failed${event.RUN_LOCATION ? ` in ${event.RUN_LOCATION}` : ''}.`;
    case 'ALERT_RECOVERY':
      return `${name} has recovered and is passing again.`;
    case 'ALERT_DEGRADED':
      return `${name} is degraded: it passes, but slower than its degraded response time.`;
    case 'ALERT_DEGRADED_RECOVERY':
      return `${name} is no longer degraded.`;
    case 'ALERT_NO_DATA':
      return `${name} has sent no results for two of its frequency windows.`;
    case 'ALERT_NO_DATA_RECOVERY':
      return `${name} is sending results again.`;
    case 'ALERT_LOCATION_UNAVAILABLE':
      return `No agent of private location ${name} has polled since ${event.LOCATION_LAST_SEEN ?? 'it was created'}: its checks are not running.`;
    case 'ALERT_LOCATION_RECOVERY':
      return `An agent of private location ${name} is polling again: its checks run again.`;
    case 'ALERT_SSL':
      return `The SSL certificate of ${event.SSL_CHECK_DOMAIN ?? 'the domain'} expires in ${event.SSL_DAYS_REMAINING ?? '?'} days.`;
  }
}

export function alertSummary(event: AlertEventVariables, publicUrl: string): AlertSummary {
  const base = publicUrl.replace(/\/$/, '');
  const result = event.CHECK_RESULT_ID;
  const location = isLocation(event);
  return {
    kind: kinds[event.ALERT_TYPE],
    silence: event.ALERT_TYPE === 'ALERT_NO_DATA' || event.ALERT_TYPE === 'ALERT_NO_DATA_RECOVERY',
    resolves:
      event.ALERT_TYPE === 'ALERT_RECOVERY' ||
      event.ALERT_TYPE === 'ALERT_DEGRADED_RECOVERY' ||
      event.ALERT_TYPE === 'ALERT_NO_DATA_RECOVERY' ||
      event.ALERT_TYPE === 'ALERT_LOCATION_RECOVERY',
    title: event.ALERT_TITLE,
    subject: location ? 'Private location' : 'Check',
    checkName: event.CHECK_NAME,
    checkId: event.CHECK_ID,
    what: whatHappened(event),
    error: event.CHECK_ERROR_MESSAGE,
    when: event.STARTED_AT ?? new Date().toISOString(),
    location: event.RUN_LOCATION,
    // A location's alert links to the location (CHECK_ID holds its id, so its incident is its own).
    link: location
      ? `${base}/private-locations/${event.CHECK_ID}`
      : result
        ? `${base}/checks/${event.CHECK_ID}/results/${result}`
        : `${base}/checks/${event.CHECK_ID}`,
    apiLink: event.RESULT_LINK,
    responseTime: event.RESPONSE_TIME,
    statusCode: event.API_CHECK_RESPONSE_STATUS_CODE,
    tags: event.TAGS,
    group: event.GROUP_NAME,
    isReminder: event.IS_REMINDER,
  };
}

/** The facts shown as a list in every message. */
export function facts(summary: AlertSummary): [label: string, value: string][] {
  const list: [string, string][] = [
    [summary.subject, summary.checkName],
    ['When', summary.when],
  ];
  if (summary.location) list.push(['Location', summary.location]);
  if (summary.error) list.push(['Error', summary.error]);
  if (summary.statusCode !== null) list.push(['Status code', String(summary.statusCode)]);
  if (summary.responseTime !== null) list.push(['Response time', `${summary.responseTime} ms`]);
  if (summary.group) list.push(['Group', summary.group]);
  if (summary.tags.length > 0) list.push(['Tags', summary.tags.join(', ')]);
  return list;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
