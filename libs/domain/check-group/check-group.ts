import { z } from 'zod';
import { ConflictError, NotFoundError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, nameSchema, parseInput, timestampSchema } from '../validation.ts';
import { variableKeySchema, variableValueSchema } from '../variable/variable.ts';
import { MASKED_VALUE, visibleValue, type Viewer } from '../variable/visibility.ts';
import {
  decideGroupTrigger,
  evolveGroupTrigger,
  groupTriggerEventData,
  type GroupTrigger,
  type GroupTriggerCommand,
} from './trigger.ts';

export const groupVariableSchema = z.object({
  key: variableKeySchema,
  value: variableValueSchema,
  locked: z.boolean().default(false),
});
type GroupVariable = z.output<typeof groupVariableSchema>;

const groupFields = {
  name: nameSchema,
  tags: z.array(z.string().trim().min(1).max(64)).max(100).default([]),
  runtimeId: z.string().min(1).max(64).nullable().default(null),
  /**
   * Where the group's checks run when they name no locations of their own: runner locations and
   * the account's private locations by slugName (checked by the application, as for checks).
   * Groups written before it read back with none.
   */
  locations: z
    .array(
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters'),
    )
    .max(50)
    .default([]),
  environmentVariables: z
    .array(groupVariableSchema)
    .max(100)
    .default([])
    .superRefine((variables, ctx) => {
      const seen = new Set<string>();
      variables.forEach((variable, index) => {
        if (seen.has(variable.key))
          ctx.addIssue({ code: 'custom', path: [index, 'key'], message: `duplicate key ${variable.key}` });
        seen.add(variable.key);
      });
    }),
};

/** The body of POST and PUT for a group: everything but the id, with defaults. */
export const checkGroupInputSchema = z.object(groupFields);
export type CheckGroupInput = z.input<typeof checkGroupInputSchema>;

export const checkGroupSchema = z.object({ id: z.uuid(), ...groupFields });
export type CheckGroup = z.output<typeof checkGroupSchema>;

const groupDefinitionEvents = defineEvents({
  CheckGroupCreated: z.object({ accountId: idSchema, group: checkGroupSchema, at: timestampSchema }),
  CheckGroupUpdated: z.object({ group: checkGroupSchema, at: timestampSchema }),
  CheckGroupDeleted: z.object({ at: timestampSchema }),
});
export const checkGroupEvents = defineEvents({ ...groupDefinitionEvents.data, ...groupTriggerEventData });
export type CheckGroupEvent = EventsOf<typeof checkGroupEvents.data>;
export const checkGroupEventSchema = checkGroupEvents.schema;
/**
 * Parses the events that change what a group is (the runner's catalogue reads only these); the
 * trigger URL's events (trigger.ts) are in checkGroupEvents and evolve the read model only.
 */
export const parseCheckGroupEvent = groupDefinitionEvents.parse;

export type CheckGroupState =
  | { status: 'absent' }
  | {
      status: 'active';
      accountId: string;
      group: CheckGroup;
      createdAt: string;
      updatedAt: string;
      /** The group's trigger URL, when it has one (trigger.ts). */
      trigger?: GroupTrigger;
    }
  | { status: 'deleted'; accountId: string; groupId: string; deletedAt: string };

export interface CreateCheckGroup extends CommandBase {
  type: 'CreateCheckGroup';
  groupId: string;
  accountId: string;
  group: CheckGroupInput;
}

/** A full replacement (PUT). */
export interface UpdateCheckGroup extends CommandBase {
  type: 'UpdateCheckGroup';
  groupId: string;
  accountId: string;
  group: CheckGroupInput;
}

export interface DeleteCheckGroup extends CommandBase {
  type: 'DeleteCheckGroup';
  groupId: string;
  accountId: string;
  /** Checks still in the group, counted by the application from the read model. */
  checkCount: number;
}

export type CheckGroupCommand = CreateCheckGroup | UpdateCheckGroup | DeleteCheckGroup | GroupTriggerCommand;

export function decideCheckGroup(command: CheckGroupCommand, state: CheckGroupState): CheckGroupEvent[] {
  switch (command.type) {
    case 'CreateCheckGroup': {
      if (state.status !== 'absent') throw new ConflictError(`check group ${command.groupId} already exists`);
      const id = parseInput(z.uuid(), command.groupId, 'id');
      const group: CheckGroup = { id, ...parseInput(checkGroupInputSchema, command.group) };
      return [{ type: 'CheckGroupCreated', data: { accountId: command.accountId, group, at: command.now } }];
    }
    case 'UpdateCheckGroup': {
      const current = activeIn(state, command);
      const input = parseInput(checkGroupInputSchema, command.group);
      const group: CheckGroup = {
        id: current.group.id,
        ...input,
        environmentVariables: keepMaskedValues(input.environmentVariables, current.group.environmentVariables),
      };
      return [{ type: 'CheckGroupUpdated', data: { group, at: command.now } }];
    }
    case 'DeleteCheckGroup': {
      activeIn(state, command);
      if (command.checkCount > 0) {
        throw new ConflictError(
          `check group ${command.groupId} still has ${command.checkCount} check(s); move or delete them first`,
        );
      }
      return [{ type: 'CheckGroupDeleted', data: { at: command.now } }];
    }
    case 'CreateGroupTrigger':
    case 'CallGroupTrigger':
    case 'DeleteGroupTrigger':
      return decideGroupTrigger(command, activeIn(state, command).trigger);
  }
}

/**
 * A caller who may not read a locked value gets it masked, and a full replacement (PUT) sends
 * back what it got: the mask, for a locked variable that is still there, keeps the stored value.
 */
function keepMaskedValues(next: GroupVariable[], stored: readonly GroupVariable[]): GroupVariable[] {
  return next.map((variable) => {
    if (variable.value !== MASKED_VALUE || !variable.locked) return variable;
    const before = stored.find((old) => old.key === variable.key && old.locked);
    return before ? { ...variable, value: before.value } : variable;
  });
}

/** The group as the viewer may see it: locked group variables follow the one masking rule (no creator is recorded). */
/**
 * Where a check runs: its own locations, else its group's (a group stored before groups had
 * locations has none). An empty list means the default location.
 */
export function effectiveLocations(
  check: { locations: readonly string[] },
  group: { locations?: readonly string[] } | null | undefined,
): string[] {
  if (check.locations.length > 0) return [...check.locations];
  return [...(group?.locations ?? [])];
}

export function maskGroupVariables(group: CheckGroup, viewer: Viewer): CheckGroup {
  return {
    ...group,
    // Groups stored before groups had locations read back with none.
    locations: (group as { locations?: string[] }).locations ?? [],
    environmentVariables: group.environmentVariables.map((variable) => ({
      ...variable,
      value: visibleValue(variable, viewer),
    })),
  };
}

function activeIn(
  state: CheckGroupState,
  command: { groupId: string; accountId: string },
): Extract<CheckGroupState, { status: 'active' }> {
  if (state.status !== 'active' || state.accountId !== command.accountId)
    throw new NotFoundError(`check group ${command.groupId} not found`);
  return state;
}

export function evolveCheckGroup(state: CheckGroupState, event: CheckGroupEvent): CheckGroupState {
  switch (event.type) {
    case 'CheckGroupCreated':
      return {
        status: 'active',
        accountId: event.data.accountId,
        group: event.data.group,
        createdAt: event.data.at,
        updatedAt: event.data.at,
      };
    case 'CheckGroupUpdated':
      return state.status === 'active' ? { ...state, group: event.data.group, updatedAt: event.data.at } : state;
    case 'CheckGroupDeleted':
      return state.status === 'active'
        ? { status: 'deleted', accountId: state.accountId, groupId: state.group.id, deletedAt: event.data.at }
        : state;
    case 'GroupTriggerCreated':
    case 'GroupTriggerCalled':
    case 'GroupTriggerDeleted': {
      if (state.status !== 'active') return state;
      const { trigger: _old, ...rest } = state;
      const trigger = evolveGroupTrigger(state.trigger, event);
      return trigger ? { ...rest, trigger } : rest;
    }
  }
}

export const checkGroupDecider: Decider<CheckGroupCommand, CheckGroupEvent, CheckGroupState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveCheckGroup,
  decide: decideCheckGroup,
};
