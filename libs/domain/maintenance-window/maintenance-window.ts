import { z } from 'zod';
import { ConflictError, NotFoundError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, nameSchema, parseInput, timestampSchema } from '../validation.ts';
import { repeatUnits, shortestPeriodMs } from './calendar.ts';

/** Any ISO 8601 time with an offset; stored and answered in UTC (toISOString), as the API speaks UTC. */
const utcTime = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 time such as 2026-12-01T22:00:00Z' })
  .transform((value) => new Date(value).toISOString())
  .refine((value) => value >= '2000-01-01' && value < '2200-01-01', 'must lie between the years 2000 and 2199');

const tagsSchema = z.array(z.string().trim().min(1).max(64)).max(100).default([]);
const checkIdsSchema = z.array(z.uuid()).max(100).default([]);
const repeatIntervalSchema = z.int().min(1).max(365).nullable().default(null);
const repeatUnitSchema = z.enum(repeatUnits, { error: 'must be DAY, WEEK or MONTH' }).nullable().default(null);

const fields = z.object({
  name: nameSchema,
  /** A check with any of these tags is covered. */
  tags: tagsSchema,
  /** Checks covered by id, whatever their tags. */
  checkIds: checkIdsSchema,
  startsAt: utcTime,
  endsAt: utcTime,
  repeatInterval: repeatIntervalSchema,
  repeatUnit: repeatUnitSchema,
  repeatEndsAt: utcTime.nullable().default(null),
  /** Scheduled runs of covered checks are skipped; with false they run and are stored but raise no alert. */
  pauseRuns: z.boolean().default(true),
});

type Fields = z.output<typeof fields>;

/** The rules between fields, each reported on the field to fix. */
function checkRules(window: Fields, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (window.tags.length === 0 && window.checkIds.length === 0)
    issue('tags', 'name at least one tag or one check id (checkIds); a window with neither covers nothing');
  if (new Set(window.checkIds).size !== window.checkIds.length) issue('checkIds', 'a check id is listed twice');
  if (window.endsAt <= window.startsAt) issue('endsAt', 'must be after startsAt');
  if ((window.repeatUnit === null) !== (window.repeatInterval === null)) {
    issue(window.repeatUnit === null ? 'repeatUnit' : 'repeatInterval', 'repeatUnit and repeatInterval go together');
    return;
  }
  if (window.repeatUnit === null || window.repeatInterval === null) {
    if (window.repeatEndsAt !== null) issue('repeatEndsAt', 'is only for a repeating window (set repeatUnit)');
    return;
  }
  if (window.repeatEndsAt !== null && window.repeatEndsAt < window.startsAt)
    issue('repeatEndsAt', 'must not be before startsAt');
  const durationMs = Date.parse(window.endsAt) - Date.parse(window.startsAt);
  if (durationMs > shortestPeriodMs(window.repeatUnit, window.repeatInterval))
    issue(
      'endsAt',
      `a window that repeats every ${window.repeatInterval} ${window.repeatUnit} may not last longer than that (it would overlap its next occurrence)`,
    );
}

/** The body of POST and PUT. */
export const maintenanceWindowInputSchema = fields.superRefine(checkRules);
export type MaintenanceWindowInput = z.input<typeof maintenanceWindowInputSchema>;

/** A stored window: the input as decided, times already in UTC. */
export const maintenanceWindowSchema = z.object({
  id: z.uuid(),
  name: nameSchema,
  tags: tagsSchema,
  checkIds: checkIdsSchema,
  startsAt: timestampSchema,
  endsAt: timestampSchema,
  repeatInterval: repeatIntervalSchema,
  repeatUnit: repeatUnitSchema,
  repeatEndsAt: timestampSchema.nullable().default(null),
  pauseRuns: z.boolean().default(true),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type MaintenanceWindow = z.output<typeof maintenanceWindowSchema>;

export const maintenanceWindowEvents = defineEvents({
  MaintenanceWindowCreated: z.object({ accountId: idSchema, window: maintenanceWindowSchema }),
  MaintenanceWindowUpdated: z.object({ window: maintenanceWindowSchema }),
  MaintenanceWindowDeleted: z.object({ at: timestampSchema }),
});
export type MaintenanceWindowEvent = EventsOf<typeof maintenanceWindowEvents.data>;

export type MaintenanceWindowState =
  | { status: 'absent' }
  | { status: 'active'; accountId: string; window: MaintenanceWindow }
  | { status: 'deleted'; accountId: string; windowId: string; deletedAt: string };

interface WindowCommand extends CommandBase {
  windowId: string;
  accountId: string;
}

export interface CreateMaintenanceWindow extends WindowCommand {
  type: 'CreateMaintenanceWindow';
  window: MaintenanceWindowInput;
  /** Checks of this account among window.checkIds, looked up by the application; any other id is refused. */
  knownCheckIds: readonly string[];
}

/** A full replacement (PUT). */
export interface UpdateMaintenanceWindow extends WindowCommand {
  type: 'UpdateMaintenanceWindow';
  window: MaintenanceWindowInput;
  knownCheckIds: readonly string[];
}

export interface DeleteMaintenanceWindow extends WindowCommand {
  type: 'DeleteMaintenanceWindow';
}

export type MaintenanceWindowCommand = CreateMaintenanceWindow | UpdateMaintenanceWindow | DeleteMaintenanceWindow;

export function decideMaintenanceWindow(
  command: MaintenanceWindowCommand,
  state: MaintenanceWindowState,
): MaintenanceWindowEvent[] {
  switch (command.type) {
    case 'CreateMaintenanceWindow': {
      if (state.status !== 'absent') throw new ConflictError(`maintenance window ${command.windowId} already exists`);
      const id = parseInput(z.uuid(), command.windowId, 'id');
      const window = { id, ...validInput(command), createdAt: command.now, updatedAt: command.now };
      return [{ type: 'MaintenanceWindowCreated', data: { accountId: command.accountId, window } }];
    }
    case 'UpdateMaintenanceWindow': {
      const current = activeIn(state, command);
      const window = { ...current.window, ...validInput(command), updatedAt: command.now };
      return [{ type: 'MaintenanceWindowUpdated', data: { window } }];
    }
    case 'DeleteMaintenanceWindow':
      activeIn(state, command);
      return [{ type: 'MaintenanceWindowDeleted', data: { at: command.now } }];
  }
}

function validInput(command: CreateMaintenanceWindow | UpdateMaintenanceWindow): Fields {
  const input = parseInput(maintenanceWindowInputSchema, command.window);
  const known = new Set(command.knownCheckIds);
  // A foreign check id is refused exactly like an unknown one, so a window cannot probe other tenants.
  const unknown = input.checkIds.findIndex((id) => !known.has(id));
  if (unknown >= 0) throw new NotFoundError(`checkIds[${unknown}]: check ${input.checkIds[unknown]} not found`);
  return input;
}

function activeIn(
  state: MaintenanceWindowState,
  command: WindowCommand,
): Extract<MaintenanceWindowState, { status: 'active' }> {
  if (state.status !== 'active' || state.accountId !== command.accountId)
    throw new NotFoundError(`maintenance window ${command.windowId} not found`);
  return state;
}

export function evolveMaintenanceWindow(
  state: MaintenanceWindowState,
  event: MaintenanceWindowEvent,
): MaintenanceWindowState {
  switch (event.type) {
    case 'MaintenanceWindowCreated':
      return { status: 'active', accountId: event.data.accountId, window: event.data.window };
    case 'MaintenanceWindowUpdated':
      return state.status === 'active' ? { ...state, window: event.data.window } : state;
    case 'MaintenanceWindowDeleted':
      return state.status === 'active'
        ? { status: 'deleted', accountId: state.accountId, windowId: state.window.id, deletedAt: event.data.at }
        : state;
  }
}

export const maintenanceWindowDecider: Decider<
  MaintenanceWindowCommand,
  MaintenanceWindowEvent,
  MaintenanceWindowState
> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveMaintenanceWindow,
  decide: decideMaintenanceWindow,
};
