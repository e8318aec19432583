import { z } from 'zod';
import { ConflictError, NotFoundError } from '#core';
import type { CommandBase } from '../decider.ts';
import { pingTokenSchema } from '../check/check-schema.ts';
import { checkTriggerSchema } from '../check/trigger.ts';
import { idSchema, parseInput, timestampSchema } from '../validation.ts';

/**
 * A group trigger: a secret URL that runs the group's checks, as Checkly's group trigger URLs do.
 * Same shape and rules as a check's trigger (check/trigger.ts): the token is kept in clear in the
 * events because the URL is shown to the group's readers on demand.
 */
export const groupTriggerSchema = checkTriggerSchema;
export type GroupTrigger = z.output<typeof groupTriggerSchema>;

export const groupTriggerEventData = {
  GroupTriggerCreated: z.object({ triggerId: idSchema, token: pingTokenSchema, at: timestampSchema }),
  GroupTriggerCalled: z.object({ triggerId: idSchema, at: timestampSchema }),
  GroupTriggerDeleted: z.object({ triggerId: idSchema, at: timestampSchema }),
};

export interface CreateGroupTrigger extends CommandBase {
  type: 'CreateGroupTrigger';
  groupId: string;
  accountId: string;
  /** Minted by the application. */
  triggerId: string;
  token: string;
}

export interface CallGroupTrigger extends CommandBase {
  type: 'CallGroupTrigger';
  groupId: string;
  accountId: string;
  /** The trigger the caller's token matched: a call raced by a delete or a new trigger counts for nothing. */
  triggerId: string;
}

export interface DeleteGroupTrigger extends CommandBase {
  type: 'DeleteGroupTrigger';
  groupId: string;
  accountId: string;
}

export type GroupTriggerCommand = CreateGroupTrigger | CallGroupTrigger | DeleteGroupTrigger;

type Data<K extends keyof typeof groupTriggerEventData> = z.output<(typeof groupTriggerEventData)[K]>;
type GroupTriggerEvent =
  | { type: 'GroupTriggerCreated'; data: Data<'GroupTriggerCreated'> }
  | { type: 'GroupTriggerCalled'; data: Data<'GroupTriggerCalled'> }
  | { type: 'GroupTriggerDeleted'; data: Data<'GroupTriggerDeleted'> };

/** Decides a trigger command for an active group of the command's account (the caller checks that). */
export function decideGroupTrigger(
  command: GroupTriggerCommand,
  trigger: GroupTrigger | undefined,
): GroupTriggerEvent[] {
  switch (command.type) {
    case 'CreateGroupTrigger': {
      // One trigger per group; the application answers the existing one instead.
      if (trigger) throw new ConflictError(`check group ${command.groupId} already has a trigger`);
      const triggerId = parseInput(z.uuid(), command.triggerId, 'triggerId');
      const token = parseInput(pingTokenSchema, command.token, 'token');
      return [{ type: 'GroupTriggerCreated', data: { triggerId, token, at: command.now } }];
    }
    case 'CallGroupTrigger':
      if (trigger?.id !== command.triggerId) throw new NotFoundError('Unknown trigger');
      return [{ type: 'GroupTriggerCalled', data: { triggerId: trigger.id, at: command.now } }];
    case 'DeleteGroupTrigger':
      if (!trigger) throw new NotFoundError(`check group ${command.groupId} has no trigger`);
      return [{ type: 'GroupTriggerDeleted', data: { triggerId: trigger.id, at: command.now } }];
  }
}

export function evolveGroupTrigger(
  trigger: GroupTrigger | undefined,
  event: GroupTriggerEvent,
): GroupTrigger | undefined {
  switch (event.type) {
    case 'GroupTriggerCreated': {
      const { triggerId, token, at } = event.data;
      return { id: triggerId, token, called: 0, calledAt: null, createdAt: at, updatedAt: at };
    }
    case 'GroupTriggerCalled':
      return trigger?.id === event.data.triggerId
        ? { ...trigger, called: trigger.called + 1, calledAt: event.data.at }
        : trigger;
    case 'GroupTriggerDeleted':
      return trigger?.id === event.data.triggerId ? undefined : trigger;
  }
}
