/**
 * An aggregate as three pure functions. Commands are decided against the state folded from the
 * stream's events; the events decide returns are appended, then evolved into the next state.
 */
export type Decider<C, E, S> = {
  initialState(): S;
  evolve(s: S, e: E): S;
  decide(c: C, s: S): E[];
};

export function fold<C, E, S>(decider: Decider<C, E, S>, events: Iterable<E>): S {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

/** Every command carries the time and the actor, so decide needs no clock and no session. */
export interface CommandBase {
  /** ISO 8601 timestamp taken once by the application. */
  now: string;
  /** User id or API key id of whoever issued the command. */
  actor: string;
}
