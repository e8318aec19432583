import type { z } from 'zod';
import { parseEventData } from './events.ts';
import { accountEvents, type AccountEvent } from './account/account.ts';
import { userEvents, type UserEvent } from './user/user.ts';
import { userEmailEvents, type UserEmailEvent } from './user/user-email.ts';
import { apiKeyEvents, type ApiKeyEvent } from './api-key/api-key.ts';
import { variableEvents, type VariableEvent } from './variable/variable.ts';
import { checkEvents, type CheckEvent } from './check/check.ts';
import { checkGroupEvents, type CheckGroupEvent } from './check-group/check-group.ts';
import { alertChannelEvents, type AlertChannelEvent } from './alert-channel/alert-channel.ts';
import { statusPageEvents, type StatusPageEvent } from './status-page/status-page.ts';
import { statusPageSlugEvents, type StatusPageSlugEvent } from './status-page/status-page-slug.ts';
import { maintenanceWindowEvents, type MaintenanceWindowEvent } from './maintenance-window/maintenance-window.ts';
import { privateLocationEvents, type PrivateLocationEvent } from './private-location/private-location.ts';

export type DomainEvent =
  | AccountEvent
  | UserEvent
  | UserEmailEvent
  | ApiKeyEvent
  | VariableEvent
  | CheckEvent
  | CheckGroupEvent
  | AlertChannelEvent
  | StatusPageEvent
  | StatusPageSlugEvent
  | MaintenanceWindowEvent
  | PrivateLocationEvent;

export type DomainEventType = DomainEvent['type'];

/** Every event type name → the zod schema of its data. `schemas/*.json` is generated from this. */
export const eventSchemas = {
  ...accountEvents.data,
  ...userEvents.data,
  ...userEmailEvents.data,
  ...apiKeyEvents.data,
  ...variableEvents.data,
  ...checkEvents.data,
  ...checkGroupEvents.data,
  ...alertChannelEvents.data,
  ...statusPageEvents.data,
  ...statusPageSlugEvents.data,
  ...maintenanceWindowEvents.data,
  ...privateLocationEvents.data,
} satisfies Record<DomainEventType, z.ZodType>;

export function isDomainEventType(type: string): type is DomainEventType {
  return Object.hasOwn(eventSchemas, type);
}

/** Validates any event read back from the store; InternalError when it does not parse. */
export function parseEvent(type: string, data: unknown): DomainEvent {
  return parseEventData(eventSchemas, type, data) as DomainEvent;
}
