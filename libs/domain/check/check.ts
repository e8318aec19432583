import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, parseInput, timestampSchema } from '../validation.ts';
import { applyCheckDefaults, checkSchema, type Check, type CheckInput } from './check-schema.ts';

export const checkEvents = defineEvents({
  CheckCreated: z.object({ accountId: idSchema, check: checkSchema, at: timestampSchema }),
  CheckUpdated: z.object({ check: checkSchema, at: timestampSchema }),
  CheckDeleted: z.object({ at: timestampSchema }),
});
export type CheckEvent = EventsOf<typeof checkEvents.data>;
export const checkEventSchema = checkEvents.schema;
export const parseCheckEvent = checkEvents.parse;

export type CheckState =
  | { status: 'absent' }
  | { status: 'active'; accountId: string; check: Check; createdAt: string; updatedAt: string }
  | { status: 'deleted'; accountId: string; checkId: string; deletedAt: string };

export interface CreateCheck extends CommandBase {
  type: 'CreateCheck';
  checkId: string;
  accountId: string;
  /** The request body; validated and completed with defaults here. */
  check: CheckInput;
}

/** A full replacement (PUT): fields left out go back to their defaults. */
export interface UpdateCheck extends CommandBase {
  type: 'UpdateCheck';
  checkId: string;
  accountId: string;
  check: CheckInput;
}

export interface DeleteCheck extends CommandBase {
  type: 'DeleteCheck';
  checkId: string;
  accountId: string;
}

export type CheckCommand = CreateCheck | UpdateCheck | DeleteCheck;

export function decideCheck(command: CheckCommand, state: CheckState): CheckEvent[] {
  switch (command.type) {
    case 'CreateCheck': {
      // Ids are never reused, not even after a delete: results and alerts refer to them.
      if (state.status !== 'absent') throw new ConflictError(`check ${command.checkId} already exists`);
      const id = parseInput(z.uuid(), command.checkId, 'id');
      const check: Check = { id, ...applyCheckDefaults(command.check) };
      return [{ type: 'CheckCreated', data: { accountId: command.accountId, check, at: command.now } }];
    }
    case 'UpdateCheck': {
      const current = activeIn(state, command);
      const check: Check = { id: current.check.id, ...applyCheckDefaults(command.check) };
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
  }
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
    case 'CheckDeleted':
      return state.status === 'active'
        ? { status: 'deleted', accountId: state.accountId, checkId: state.check.id, deletedAt: event.data.at }
        : state;
  }
}

export const checkDecider: Decider<CheckCommand, CheckEvent, CheckState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveCheck,
  decide: decideCheck,
};
