import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, parseInput, timestampSchema } from '../validation.ts';
import { applyCheckDefaults, checkSchema, pingTokenSchema, type Check, type CheckInput } from './check-schema.ts';
import {
  checkTriggerEventData,
  decideCheckTrigger,
  evolveCheckTrigger,
  type CheckTrigger,
  type CheckTriggerCommand,
} from './trigger.ts';

const checkDefinitionEvents = defineEvents({
  CheckCreated: z.object({ accountId: idSchema, check: checkSchema, at: timestampSchema }),
  CheckUpdated: z.object({ check: checkSchema, at: timestampSchema }),
  CheckDeleted: z.object({ at: timestampSchema }),
  HeartbeatTokenRotated: z.object({ pingToken: pingTokenSchema, at: timestampSchema }),
});
export const checkEvents = defineEvents({ ...checkDefinitionEvents.data, ...checkTriggerEventData });
export type CheckEvent = EventsOf<typeof checkEvents.data>;
export const checkEventSchema = checkEvents.schema;
/**
 * Parses the events that change what a check is (the runner's catalogue reads only these); the
 * trigger URL's events (trigger.ts) are in checkEvents and evolve the read model, not a schedule.
 */
export const parseCheckEvent = checkDefinitionEvents.parse;

export type CheckState =
  | { status: 'absent' }
  | {
      status: 'active';
      accountId: string;
      check: Check;
      createdAt: string;
      updatedAt: string;
      /** The check's trigger URL, when it has one (trigger.ts). */
      trigger?: CheckTrigger;
    }
  | { status: 'deleted'; accountId: string; checkId: string; deletedAt: string };

export interface CreateCheck extends CommandBase {
  type: 'CreateCheck';
  checkId: string;
  accountId: string;
  /** The request body; validated and completed with defaults here. */
  check: CheckInput;
  /** Minted by the application; used when the check is a heartbeat with a definition. */
  pingToken?: string;
}

/** A full replacement (PUT): fields left out go back to their defaults. */
export interface UpdateCheck extends CommandBase {
  type: 'UpdateCheck';
  checkId: string;
  accountId: string;
  check: CheckInput;
  /** Used only when the check gains a heartbeat definition and has no token yet. */
  pingToken?: string;
}

export interface DeleteCheck extends CommandBase {
  type: 'DeleteCheck';
  checkId: string;
  accountId: string;
}

/** A new unguessable ping URL; the old one stops working at once. */
export interface RotateHeartbeatToken extends CommandBase {
  type: 'RotateHeartbeatToken';
  checkId: string;
  accountId: string;
  pingToken: string;
}

export type CheckCommand = CreateCheck | UpdateCheck | DeleteCheck | RotateHeartbeatToken | CheckTriggerCommand;

export function decideCheck(command: CheckCommand, state: CheckState): CheckEvent[] {
  switch (command.type) {
    case 'CreateCheck': {
      // Ids are never reused, not even after a delete: results and alerts refer to them.
      if (state.status !== 'absent') throw new ConflictError(`check ${command.checkId} already exists`);
      const id = parseInput(z.uuid(), command.checkId, 'id');
      const check = withPingToken({ id, ...applyCheckDefaults(command.check) } as Check, null, command.pingToken);
      return [{ type: 'CheckCreated', data: { accountId: command.accountId, check, at: command.now } }];
    }
    case 'UpdateCheck': {
      const current = activeIn(state, command);
      const check = withPingToken(
        { id: current.check.id, ...applyCheckDefaults(command.check) } as Check,
        current.check,
        command.pingToken,
      );
      if (check.checkType !== current.check.checkType) {
        throw new ValidationError(
          `checkType: the type of a check cannot be changed (it is ${current.check.checkType})`,
        );
      }
      return [{ type: 'CheckUpdated', data: { check, at: command.now } }];
    }
    case 'DeleteCheck': {
      activeIn(state, command);
      return [{ type: 'CheckDeleted', data: { at: command.now } }];
    }
    case 'RotateHeartbeatToken': {
      const current = activeIn(state, command);
      if (current.check.checkType !== 'HEARTBEAT' || current.check.heartbeat === undefined) {
        throw new ValidationError(`check ${command.checkId} is not a heartbeat check with a heartbeat definition`);
      }
      const pingToken = parseInput(pingTokenSchema, command.pingToken, 'pingToken');
      return [{ type: 'HeartbeatTokenRotated', data: { pingToken, at: command.now } }];
    }
    case 'CreateCheckTrigger':
    case 'CallCheckTrigger':
    case 'DeleteCheckTrigger':
      return decideCheckTrigger(command, activeIn(state, command).trigger);
  }
}

/**
 * A heartbeat definition keeps its token across updates (the user's cron jobs use the URL), and
 * gets the command's fresh token only when it has none yet.
 */
function withPingToken(check: Check, previous: Check | null, minted: string | undefined): Check {
  if (check.checkType !== 'HEARTBEAT' || check.heartbeat === undefined) return check;
  const kept = previous?.checkType === 'HEARTBEAT' ? previous.heartbeat?.pingToken : undefined;
  const pingToken = kept ?? minted;
  if (pingToken === undefined) throw new ValidationError('heartbeat: the application must mint a ping token');
  return {
    ...check,
    // Built field by field: a token or URL the client sent back must not reach the event.
    heartbeat: {
      period: check.heartbeat.period,
      periodUnit: check.heartbeat.periodUnit,
      grace: check.heartbeat.grace,
      graceUnit: check.heartbeat.graceUnit,
      pingToken: parseInput(pingTokenSchema, pingToken, 'pingToken'),
    },
  };
}

/** A check of another account is answered as unknown, so ids cannot be probed across accounts. */
function activeIn(
  state: CheckState,
  command: { checkId: string; accountId: string },
): Extract<CheckState, { status: 'active' }> {
  if (state.status !== 'active' || state.accountId !== command.accountId)
    throw new NotFoundError(`check ${command.checkId} not found`);
  return state;
}

export function evolveCheck(state: CheckState, event: CheckEvent): CheckState {
  switch (event.type) {
    case 'CheckCreated':
      return {
        status: 'active',
        accountId: event.data.accountId,
        check: event.data.check,
        createdAt: event.data.at,
        updatedAt: event.data.at,
      };
    case 'CheckUpdated':
      return state.status === 'active' ? { ...state, check: event.data.check, updatedAt: event.data.at } : state;
    case 'HeartbeatTokenRotated':
      if (state.status !== 'active' || state.check.checkType !== 'HEARTBEAT' || !state.check.heartbeat) return state;
      return {
        ...state,
        check: { ...state.check, heartbeat: { ...state.check.heartbeat, pingToken: event.data.pingToken } },
        updatedAt: event.data.at,
      };
    case 'CheckDeleted':
      return state.status === 'active'
        ? { status: 'deleted', accountId: state.accountId, checkId: state.check.id, deletedAt: event.data.at }
        : state;
    case 'CheckTriggerCreated':
    case 'CheckTriggerCalled':
    case 'CheckTriggerDeleted': {
      if (state.status !== 'active') return state;
      const { trigger: _old, ...rest } = state;
      const trigger = evolveCheckTrigger(state.trigger, event);
      return trigger ? { ...rest, trigger } : rest;
    }
  }
}

export const checkDecider: Decider<CheckCommand, CheckEvent, CheckState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveCheck,
  decide: decideCheck,
};
