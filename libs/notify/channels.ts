import type { AlertEvent, LocationAlert } from '#alerting';
import type { AlertChannelView } from '#readmodels';

/** Whether a channel wants this alert, by its sending flags (and SSL threshold). */
export function channelWants(view: AlertChannelView, event: AlertEvent): boolean {
  const channel = view.channel;
  switch (event.alertType) {
    case 'ALERT_FAILURE':
    case 'ALERT_NO_DATA':
      return channel.sendFailure;
    case 'ALERT_RECOVERY':
    case 'ALERT_NO_DATA_RECOVERY':
      return channel.sendRecovery;
    case 'ALERT_DEGRADED':
    case 'ALERT_DEGRADED_RECOVERY':
      return channel.sendDegraded;
    case 'ALERT_SSL':
      return channel.sslExpiry && event.ssl !== null && event.ssl.daysRemaining <= channel.sslExpiryThreshold;
  }
}

/** A private location's alerts go to the account's channels that send failures (and recoveries). */
export function channelWantsLocation(view: AlertChannelView, alert: LocationAlert): boolean {
  return alert.alertType === 'ALERT_LOCATION_UNAVAILABLE' ? view.channel.sendFailure : view.channel.sendRecovery;
}

const SENSITIVE = /authorization|cookie|token|secret|api[-_]?key|password|signature/i;

/** Headers as shown back to users: credentials a channel sends are masked. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, SENSITIVE.test(name) ? '********' : value]),
  );
}
