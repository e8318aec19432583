// Public surface of #domain: pure aggregates (initialState / evolve / decide), their event schemas,
// and the input schemas and helpers the application shares with them.
export { fold, type Decider, type CommandBase } from './decider.ts';
export { streamNames } from './streams.ts';
export { defineEvents, type EventsOf, type EventDefinitions } from './events.ts';
export {
  eventSchemas,
  parseEvent,
  isDomainEventType,
  type DomainEvent,
  type DomainEventType,
} from './event-schemas.ts';
export { roles, roleSchema, roleAtLeast, assertWithinCeiling, assertAdmin, type Role } from './roles.ts';
export { utf8Bytes } from './validation.ts';

export * from './account/alert-settings.ts';
export * from './account/account.ts';
export * from './user/user.ts';
export * from './user/user-email.ts';
export * from './api-key/api-key.ts';
export * from './variable/variable.ts';
export * from './variable/visibility.ts';
export * from './check/check-schema.ts';
export * from './check/definition.ts';
export * from './check/heartbeat.ts';
export * from './check/check.ts';
export * from './check/trigger.ts';
export * from './check-group/check-group.ts';
export * from './check-group/trigger.ts';
export * from './alert-channel/alert-channel-schema.ts';
export * from './alert-channel/alert-channel.ts';
export * from './check-result.ts';
export * from './status-page/status-page.ts';
export * from './status-page/status-page-slug.ts';
export * from './maintenance-window/calendar.ts';
export * from './maintenance-window/coverage.ts';
export * from './maintenance-window/maintenance-window.ts';
export * from './private-location/private-location.ts';
