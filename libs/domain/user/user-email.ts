import { z } from 'zod';
import { ConflictError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, parseInput } from '../validation.ts';
import { emailSchema, normalizeEmail } from './user.ts';

/**
 * One stream per normalized email. The application appends EmailReserved with expected revision
 * 'no_stream' before registering the user, so two sign-ups with one email cannot both succeed.
 */
export const userEmailEvents = defineEvents({
  EmailReserved: z.object({ email: emailSchema, userId: idSchema }),
});
export type UserEmailEvent = EventsOf<typeof userEmailEvents.data>;
export const userEmailEventSchema = userEmailEvents.schema;
export const parseUserEmailEvent = userEmailEvents.parse;

export type UserEmailState = { reservedBy: string | null };

export interface ReserveEmail extends CommandBase {
  type: 'ReserveEmail';
  email: string;
  userId: string;
}

export type UserEmailCommand = ReserveEmail;

export function decideUserEmail(command: UserEmailCommand, state: UserEmailState): UserEmailEvent[] {
  const input = parseInput(z.object({ email: emailSchema, userId: idSchema }), {
    email: normalizeEmail(command.email),
    userId: command.userId,
  });
  if (state.reservedBy !== null) throw new ConflictError(`email ${input.email} is already registered`);
  return [{ type: 'EmailReserved', data: input }];
}

export function evolveUserEmail(state: UserEmailState, event: UserEmailEvent): UserEmailState {
  return state.reservedBy === null ? { reservedBy: event.data.userId } : state;
}

export const userEmailDecider: Decider<UserEmailCommand, UserEmailEvent, UserEmailState> = {
  initialState: () => ({ reservedBy: null }),
  evolve: evolveUserEmail,
  decide: decideUserEmail,
};
