import type { RecordedEvent } from '#eventstore';
import type { WriteOp } from '#statestore';

/** What a projection may read while it applies an event; it sees writes of the batch in progress. */
export interface ReadView {
  get(key: string): Promise<string | null>;
  hget(key: string, field: string): Promise<string | null>;
}

/**
 * A projection turns events into state-store writes. It must be deterministic: replaying the
 * same events from position zero yields the same read model.
 */
export interface Projection {
  name: string;
  /** Ops that apply one event; [] for events it does not care about. */
  apply(event: RecordedEvent, view: ReadView): Promise<WriteOp[]> | WriteOp[];
}
