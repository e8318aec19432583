import { z } from 'zod';
import { uuidV5, ALERT_ID_NAMESPACE } from './alert-id.ts';

export const locationAlertTypes = ['ALERT_LOCATION_UNAVAILABLE', 'ALERT_LOCATION_RECOVERY'] as const;
export type LocationAlertType = (typeof locationAlertTypes)[number];

const instant = z.iso.datetime({ offset: true });

/**
 * One alert about a private location: no agent polled it for the availability window
 * (UNAVAILABLE), or one polls again after that (RECOVERY). One outage is named by the moment its
 * last agent was last seen, so both of its alerts have ids fixed by (location, type, that moment):
 * a watcher that decides them again after a restart decides the same ids, and the dispatcher's
 * delivery records make each one go out once per channel.
 */
export const locationAlertSchema = z
  .object({
    subject: z.literal('LOCATION'),
    alertId: z.uuid(),
    accountId: z.uuid(),
    locationId: z.uuid(),
    alertType: z.enum(locationAlertTypes),
    /** When an agent last polled before the outage: the outage's name. */
    lastSeenAt: instant,
    /** UNAVAILABLE: when the window ran out; RECOVERY: when an agent was seen again. */
    startedAt: instant,
    occurredAt: instant,
  })
  .strict();
export type LocationAlert = z.output<typeof locationAlertSchema>;

export function locationAlertId(locationId: string, alertType: LocationAlertType, lastSeenMs: number): string {
  return uuidV5(`location/${locationId.toLowerCase()}/${alertType}/${lastSeenMs}`, ALERT_ID_NAMESPACE);
}

/** What the watcher knows of one location at one moment. */
export interface LocationObservation {
  accountId: string;
  locationId: string;
  /** When an agent last polled (ms); the watcher looks only at locations an agent ever polled. */
  lastSeenMs: number;
  /** The outage already alerted (its lastSeen, ms), from the state store; null when none is open. */
  openOutageMs: number | null;
  now: number;
  unavailableAfterMs: number;
}

/** The location's outage as the watcher remembers it after this decision (null: none open). */
export interface LocationDecision {
  alerts: LocationAlert[];
  openOutageMs: number | null;
}

/**
 * Pure: which alerts a location's presence calls for. An outage opens when the last poll is older
 * than the window, and closes (RECOVERY) as soon as a poll newer than the outage's is seen, even
 * if that agent is gone again by the time the watcher looks: then a new outage opens at once.
 */
export function decideLocationAlerts(observation: LocationObservation): LocationDecision {
  const { accountId, locationId, lastSeenMs, openOutageMs, now, unavailableAfterMs } = observation;
  const alerts: LocationAlert[] = [];
  const occurredAt = new Date(now).toISOString();
  const alert = (alertType: LocationAlertType, outageMs: number, startedMs: number): LocationAlert => ({
    subject: 'LOCATION',
    alertId: locationAlertId(locationId, alertType, outageMs),
    accountId,
    locationId,
    alertType,
    lastSeenAt: new Date(outageMs).toISOString(),
    startedAt: new Date(startedMs).toISOString(),
    occurredAt,
  });
  let open = openOutageMs;
  if (open !== null && lastSeenMs > open) {
    alerts.push(alert('ALERT_LOCATION_RECOVERY', open, lastSeenMs));
    open = null;
  }
  const dark = lastSeenMs < now - unavailableAfterMs;
  if (dark && open === null) {
    alerts.push(alert('ALERT_LOCATION_UNAVAILABLE', lastSeenMs, lastSeenMs + unavailableAfterMs));
    open = lastSeenMs;
  }
  return { alerts, openOutageMs: open };
}
