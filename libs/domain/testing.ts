import { expect } from 'vitest';
import type { Decider } from './decider.ts';
import { fold } from './decider.ts';
import { parseEvent } from './event-schemas.ts';

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Given-when-then for deciders, used by the tests beside each aggregate:
 *   given(decider, pastEvents).when(command).thenEvents(expected)
 *   given(decider, pastEvents).when(command).thenError(NotFoundError, /message/)
 * thenEvents also checks that every event decided parses back through the event-schema registry
 * unchanged, and returns the state evolved over the new events.
 */
export function given<C, E extends { type: string; data: unknown }, S>(decider: Decider<C, E, S>, events: E[] = []) {
  const state = fold(decider, events);
  return {
    state,
    when(command: C) {
      const decide = (): E[] => decider.decide(command, state);
      return {
        thenEvents(expected: E[]): S {
          const produced = decide();
          expect(produced).toEqual(expected);
          for (const event of produced) expect(parseEvent(event.type, event.data)).toEqual(event);
          return produced.reduce(decider.evolve, state);
        },
        thenError(errorClass: ErrorClass, message?: RegExp): void {
          let caught: unknown;
          try {
            decide();
          } catch (error) {
            caught = error;
          }
          expect(caught, 'decide should have refused the command').toBeInstanceOf(errorClass);
          if (message !== undefined) expect((caught as Error).message).toMatch(message);
        },
        /** The events without asserting them, for tests that inspect one field. */
        events: decide,
      };
    },
  };
}
