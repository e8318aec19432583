import { randomUUID } from 'node:crypto';
import { fold, parseEvent, type Decider } from '#domain';
import type { EventStore } from '#eventstore';
import type { Logger } from '#core';
import { derivedCommandId, isDryRun } from './request-context.ts';

/** How a write waits until the read models include it. */
export interface ReadModelSync {
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
}

export interface CommandMeta {
  accountId: string | null;
  actor: string;
}

export interface CommandOutcome<E, S> {
  before: S;
  state: S;
  events: E[];
  position: bigint | undefined;
  /** The command was committed earlier by the same idempotent request (a retry after a crash): nothing new was appended. */
  replayed?: boolean;
  /** A dry run: the events were decided, and the state is what they would make, but nothing was appended. */
  dryRun?: boolean;
}

/**
 * Runs one command against one stream: fold the stream, decide, append at the revision that was
 * read (a racing writer gets a 409), then wait, bounded, until the read models include the write
 * so the caller's next GET sees it. In a dry run (see request-context) it stops after deciding.
 */
export class CommandRunner {
  constructor(
    private readonly eventStore: EventStore,
    private readonly sync: ReadModelSync,
    private readonly log: Logger,
    private readonly readYourWritesTimeoutMs: number,
  ) {}

  now(): string {
    return new Date().toISOString();
  }

  async load<S>(
    decider: Decider<unknown, unknown, S>,
    stream: string,
  ): Promise<{ state: S; revision: number | 'no_stream' }> {
    const recorded = await this.eventStore.readStream(stream);
    const state = fold(
      decider,
      recorded.map((event) => parseEvent(event.type, event.data)),
    );
    const last = recorded.at(-1);
    return { state, revision: last ? last.revision : 'no_stream' };
  }

  async run<C, E extends { type: string; data: unknown }, S>(
    decider: Decider<C, E, S>,
    stream: string,
    command: (state: S) => C,
    meta: CommandMeta,
  ): Promise<CommandOutcome<E, S>> {
    const recorded = await this.eventStore.readStream(stream);
    const parsed = recorded.map((event) => parseEvent(event.type, event.data) as unknown as E);
    const before = fold(decider, parsed);
    const revision = recorded.length > 0 ? recorded.at(-1)!.revision : 'no_stream';
    const decided = command(before);
    const derived = derivedCommandId(stream, (decided as { type?: unknown }).type as string);
    if (derived !== null) {
      const replay = this.replay(decider, recorded, parsed, derived);
      if (replay) {
        await this.settle(replay.position!);
        return replay;
      }
    }
    const events = decider.decide(decided, before);
    if (events.length === 0) return { before, state: before, events, position: undefined };
    if (isDryRun())
      return { before, state: events.reduce(decider.evolve, before), events, position: undefined, dryRun: true };
    const commandId = derived ?? randomUUID();
    const occurredAt = this.now();
    const result = await this.eventStore.append(
      stream,
      events.map((event) => ({
        id: randomUUID(),
        type: event.type,
        data: event.data as Record<string, unknown>,
        metadata: { accountId: meta.accountId, actor: meta.actor, commandId, occurredAt, schemaVersion: 1 },
      })),
      revision,
    );
    const state = events.reduce(decider.evolve, before);
    await this.settle(result.position);
    return { before, state, events, position: result.position };
  }

  /** The outcome an earlier run of this very command committed, when the stream holds it. */
  private replay<C, E extends { type: string; data: unknown }, S>(
    decider: Decider<C, E, S>,
    recorded: { metadata?: { commandId?: unknown } | undefined; position: bigint }[],
    parsed: E[],
    commandId: string,
  ): CommandOutcome<E, S> | undefined {
    const indexes = recorded.flatMap((event, i) => (event.metadata?.commandId === commandId ? [i] : []));
    if (indexes.length === 0) return undefined;
    const first = indexes[0]!;
    const last = indexes.at(-1)!;
    const before = fold(decider, parsed.slice(0, first));
    const state = fold(decider, parsed.slice(0, last + 1));
    return {
      before,
      state,
      events: indexes.map((i) => parsed[i]!),
      position: recorded[last]!.position,
      replayed: true,
    };
  }

  /** Waits until read models include position; a slow projector delays the answer, never loses it. */
  async settle(position: bigint): Promise<void> {
    if (this.readYourWritesTimeoutMs === 0) return;
    if (!(await this.sync.waitFor(position, this.readYourWritesTimeoutMs))) {
      this.log.warn(
        { position: position.toString(), timeoutMs: this.readYourWritesTimeoutMs },
        'read models lag behind a write',
      );
    }
  }
}
