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
export { channelWants, maskHeaders } from './channels.ts';
export { deterministicId } from './ids.ts';
export { eventVariables, templateVariablesFor, checkContext, type CheckContext } from './variables.ts';
export { sampleAlert, sampleContext, syntheticContext } from './samples.ts';
