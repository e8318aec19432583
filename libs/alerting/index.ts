// Public surface of #alerting: the pure alerting core. The per-check alert state machine, the
// alert-events.v1 message, the state codec for the state store and settings resolution. No I/O.
export { alertTypes, type AlertType, type AlertDecision, type SslObservation } from './decision.ts';
export { alertId, uuidV5, ALERT_ID_NAMESPACE, type AlertIdParts } from './alert-id.ts';
export {
  initialAlertState,
  checkAlertStateSchema,
  alertStatuses,
  ALERT_STATE_VERSION,
  MAX_TIED_RESULT_IDS,
  type CheckAlertState,
  type AlertStatus,
  type Streak,
} from './state.ts';
export { evolveAlertState, resultStatus, type AlertInput, type AlertEvolution } from './state-machine.ts';
export { SSL_OBSERVATION_MAX_DAYS } from './ssl.ts';
export { serializeAlertState, parseAlertState } from './state-codec.ts';
export { resolveAlertSettings, escalationReached, reminderDue } from './settings.ts';
export {
  alertEventSchema,
  buildAlertEvent,
  parseAlertEvent,
  alertEventJsonSchema,
  type AlertEvent,
  type ParsedAlertEvent,
} from './alert-event.ts';
export {
  locationAlertSchema,
  locationAlertTypes,
  locationAlertId,
  decideLocationAlerts,
  type LocationAlert,
  type LocationAlertType,
  type LocationObservation,
  type LocationDecision,
} from './location-alert.ts';
