export { Dispatcher, type DispatcherOptions, type AttemptOutcome } from './dispatcher.ts';
export {
  DeliveryStore,
  deliverySchema,
  attemptSchema,
  deliveryLogEntrySchema,
  deliveryStatuses,
  type Delivery,
  type Attempt,
  type DeliveryLogEntry,
  type DeliveryStatus,
} from './store.ts';
export { channelWants, channelWantsLocation, maskHeaders } from './channels.ts';
export { locationEventVariables, locationTemplateVariables } from './location-variables.ts';
export { deterministicId, orderedId } from './ids.ts';
export { deliveryIdFor } from './delivery-id.ts';
export { eventVariables, templateVariablesFor, checkContext, type CheckContext } from './variables.ts';
export { sampleAlert, sampleContext, syntheticContext } from './samples.ts';
export {
  channelEnv,
  channelEndpoints,
  DEFAULT_CHANNEL_ENDPOINTS,
  OPSGENIE_API_URLS,
  type ChannelEndpoints,
} from './config.ts';
export { buildOutgoing, channelOrigin, type Outgoing } from './channels/outgoing.ts';
export { incidentKey } from './channels/payloads.ts';
export { sendEmail, type EmailOptions } from './channels/email.ts';
export { alertSummary, type AlertSummary } from './channels/summary.ts';
export { LocationWatch, AGENT_LOCATIONS_KEY, type LocationWatchOptions } from './location-watch.ts';
