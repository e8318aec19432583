import { deterministicId, isOrderedId, orderedId } from './ids.ts';

/** What a delivery id is made from: a check's alert, or a location's (which has a subject). */
export type AlertKey =
  { alertId: string; startedAt: string } | { alertId: string; subject: string; lastSeenAt: string };

/**
 * The time a delivery id starts with (ms): fixed by the alert id's own inputs, so every replay
 * of an alert gives it: a check's alert comes from one result, and the result's start is part
 * of it; a location's alert names its outage by the last poll before it.
 */
export function alertTimeMs(alert: AlertKey): number {
  return Date.parse('subject' in alert ? alert.lastSeenAt : alert.startedAt);
}

/** The id of an alert's delivery to a channel (see orderedId). */
export function deliveryIdFor(alert: AlertKey, channelId: string, timeMs = alertTimeMs(alert)): string {
  return orderedId(timeMs, alert.alertId, channelId);
}

/**
 * The id the same delivery had before ids were ordered by time (dispatchers up to 2026-11-29),
 * or null for an id that was never ordered. A dispatcher that upgrades while alerts wait on the
 * bus, recorded but not yet acknowledged, must still find them under it.
 */
export function legacyDeliveryId(delivery: {
  id: string;
  channelId: string;
  alert: { alertId: string };
}): string | null {
  return isOrderedId(delivery.id) ? deterministicId(delivery.alert.alertId, delivery.channelId) : null;
}
