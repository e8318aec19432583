import { z } from 'zod';
import { ConflictError, NotFoundError } from '#core';
import type { CommandBase } from '../decider.ts';
import { idSchema, parseInput, timestampSchema } from '../validation.ts';
import { pingTokenSchema } from './check-schema.ts';

/**
 * A check trigger: a secret URL that starts a run of one check, as Checkly's are. The token is a
 * bearer credential kept in clear in the events, like a heartbeat's ping token: the URL is shown
 * to the check's readers on demand, so it must be recoverable (see docs/api.md, Check triggers).
 */
export const checkTriggerSchema = z.object({
  id: idSchema,
  token: pingTokenSchema,
  /** How many times the URL started a run. */
  called: z.number().int().nonnegative(),
  calledAt: timestampSchema.nullable(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type CheckTrigger = z.output<typeof checkTriggerSchema>;

export const checkTriggerEventData = {
  CheckTriggerCreated: z.object({ triggerId: idSchema, token: pingTokenSchema, at: timestampSchema }),
  CheckTriggerCalled: z.object({ triggerId: idSchema, at: timestampSchema }),
  CheckTriggerDeleted: z.object({ triggerId: idSchema, at: timestampSchema }),
};

export interface CreateCheckTrigger extends CommandBase {
  type: 'CreateCheckTrigger';
  checkId: string;
  accountId: string;
  /** Minted by the application. */
  triggerId: string;
  token: string;
}

export interface CallCheckTrigger extends CommandBase {
  type: 'CallCheckTrigger';
  checkId: string;
  accountId: string;
  /** The trigger the caller's token matched: a call raced by a delete or a new trigger counts for nothing. */
  triggerId: string;
}

export interface DeleteCheckTrigger extends CommandBase {
  type: 'DeleteCheckTrigger';
  checkId: string;
  accountId: string;
}

export type CheckTriggerCommand = CreateCheckTrigger | CallCheckTrigger | DeleteCheckTrigger;

type TriggerEvent =
  | { type: 'CheckTriggerCreated'; data: z.output<typeof checkTriggerEventData.CheckTriggerCreated> }
  | { type: 'CheckTriggerCalled'; data: z.output<typeof checkTriggerEventData.CheckTriggerCalled> }
  | { type: 'CheckTriggerDeleted'; data: z.output<typeof checkTriggerEventData.CheckTriggerDeleted> };

/** Decides a trigger command for an active check of the command's account (the caller checks that). */
export function decideCheckTrigger(command: CheckTriggerCommand, trigger: CheckTrigger | undefined): TriggerEvent[] {
  switch (command.type) {
    case 'CreateCheckTrigger': {
      // One trigger per check; the application answers the existing one instead, so a re-applied plan keeps its URL.
      if (trigger) throw new ConflictError(`check ${command.checkId} already has a trigger`);
      const triggerId = parseInput(z.uuid(), command.triggerId, 'triggerId');
      const token = parseInput(pingTokenSchema, command.token, 'token');
      return [{ type: 'CheckTriggerCreated', data: { triggerId, token, at: command.now } }];
    }
    case 'CallCheckTrigger':
      if (trigger?.id !== command.triggerId) throw new NotFoundError('Unknown trigger');
      return [{ type: 'CheckTriggerCalled', data: { triggerId: trigger.id, at: command.now } }];
    case 'DeleteCheckTrigger':
      if (!trigger) throw new NotFoundError(`check ${command.checkId} has no trigger`);
      return [{ type: 'CheckTriggerDeleted', data: { triggerId: trigger.id, at: command.now } }];
  }
}

export function evolveCheckTrigger(trigger: CheckTrigger | undefined, event: TriggerEvent): CheckTrigger | undefined {
  switch (event.type) {
    case 'CheckTriggerCreated': {
      const { triggerId, token, at } = event.data;
      return { id: triggerId, token, called: 0, calledAt: null, createdAt: at, updatedAt: at };
    }
    case 'CheckTriggerCalled':
      return trigger?.id === event.data.triggerId
        ? { ...trigger, called: trigger.called + 1, calledAt: event.data.at }
        : trigger;
    case 'CheckTriggerDeleted':
      return trigger?.id === event.data.triggerId ? undefined : trigger;
  }
}
