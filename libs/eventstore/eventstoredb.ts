import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  NO_STREAM,
  START,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  type AllStreamRecordedEvent,
  type AppendExpectedRevision,
  type RecordedEvent as DriverRecordedEvent,
} from '@eventstore/db-client';
import {
  AppError,
  ConcurrencyError,
  ConflictError,
  InternalError,
  PayloadTooLargeError,
  UnavailableError,
  type Logger,
} from '#core';
import { checkNewEvents, corruptEvent, decodeStoredEvent } from './codec.ts';
import type { EventStore, ExpectedRevision, RecordedEvent, SubscribeOptions } from './port.ts';

export interface EventStoreDbOptions {
  /** e.g. esdb://localhost:2113?tls=false */
  connectionString: string;
  log?: Logger;
}

const identityStream = 'vigil-store-identity';

/** gRPC status codes that mean "the server is not reachable right now". */
const unavailableGrpcCodes = new Set([
  1 /* CANCELLED */, 4 /* DEADLINE_EXCEEDED */, 8 /* RESOURCE_EXHAUSTED */, 14 /* UNAVAILABLE */,
]);

/**
 * Event store on EventStoreDB over gRPC.
 *
 * Positions: RecordedEvent.position is the event's $all commit position. That is sound because
 * since v20 every event appended over gRPC is its own log record with its own commit position
 * (commit === prepare), and commit positions increase monotonically in $all order. So the
 * commit position alone identifies an event in $all, and `{ commit: p, prepare: p }` is exactly
 * the position to resume from.
 */
export function createEventStoreDbEventStore(options: EventStoreDbOptions): EventStore {
  const { log } = options;
  let client: EventStoreDBClient;
  try {
    client = EventStoreDBClient.connectionString(options.connectionString);
  } catch (error) {
    throw new UnavailableError(`Invalid EventStoreDB connection string: ${(error as Error).message}`, { cause: error });
  }
  let closed = false;
  const closing = new AbortController();

  function ensureOpen(): void {
    if (closed) throw new UnavailableError('The event store is closed');
  }

  async function* subscribe(subscribeOptions: SubscribeOptions): AsyncGenerator<RecordedEvent> {
    const from = subscribeOptions.fromPosition ?? 0n;
    const stop = subscribeOptions.signal ? AbortSignal.any([subscribeOptions.signal, closing.signal]) : closing.signal;
    if (stop.aborted) return;
    const subscription = client.subscribeToAll({
      fromPosition: from > 0n ? { commit: from, prepare: from } : START,
      filter: excludeSystemEvents(),
    });
    // Errors reach us through the iterator; this listener only keeps a late error, emitted after
    // we stopped iterating, from crashing the process as an unhandled 'error' event.
    subscription.on('error', () => undefined);
    const iterator = subscription[Symbol.asyncIterator]();
    // Racing every read against the stop signal ends the generator on abort even if the driver
    // never ends its stream after a cancel.
    let onStop!: () => void;
    const stopped = new Promise<'stopped'>((resolve) => {
      onStop = () => resolve('stopped');
      stop.addEventListener('abort', onStop, { once: true });
    });
    try {
      for (;;) {
        const pending = iterator.next();
        pending.catch(() => undefined);
        const next = await Promise.race([pending, stopped]);
        if (next === 'stopped' || next.done) return;
        const event = next.value.event;
        if (!event) continue;
        // The server starts after `from` already; the check keeps the port's promise even if a
        // server version treated the start position as inclusive.
        if (event.position.commit <= from) continue;
        yield decodeDriverEvent(event, event.position.commit);
      }
    } catch (error) {
      if (stop.aborted) return;
      throw translate(error);
    } finally {
      stop.removeEventListener('abort', onStop);
      // Neither is awaited: unsubscribe waits for the connection, and the iterator's return()
      // would queue behind a pending read. Destroying the stream settles that read instead.
      void subscription.unsubscribe().catch(() => undefined);
      subscription.destroy();
    }
  }

  /** Position of the event at `revision` of `stream`, read back from the server. */
  async function positionOf(stream: string, revision: bigint): Promise<bigint | undefined> {
    for await (const resolved of client.readStream(stream, { fromRevision: revision, maxCount: 1 })) {
      return resolved.event?.position?.commit;
    }
    return undefined;
  }

  return {
    async append(stream, events, expectedRevision) {
      ensureOpen();
      checkNewEvents(stream, events);
      try {
        const result = await client.appendToStream(
          stream,
          events.map((event) =>
            jsonEvent({ id: event.id, type: event.type, data: event.data, metadata: event.metadata }),
          ),
          { expectedRevision: toDriverRevision(expectedRevision) },
        );
        let position = result.position?.commit;
        // The port promises the position of the LAST event written. For a multi-event append we
        // read that event back rather than rely on what the append reply's position denotes.
        if (events.length > 1) {
          const last = await positionOf(stream, result.nextExpectedRevision);
          if (last !== undefined && (position === undefined || last > position)) position = last;
        }
        if (position === undefined)
          throw new InternalError('EventStoreDB did not report a position (server older than v20?)');
        return { nextRevision: Number(result.nextExpectedRevision), position };
      } catch (error) {
        throw translate(error, stream);
      }
    },

    async readStream(stream, readOptions = {}) {
      ensureOpen();
      const events: RecordedEvent[] = [];
      try {
        const fromRevision = BigInt(readOptions.fromRevision ?? 0);
        for await (const resolved of client.readStream(stream, {
          fromRevision: fromRevision > 0n ? fromRevision : START,
        })) {
          const event = resolved.event;
          if (!event) continue;
          if (event.position === undefined)
            throw corruptEvent(locate(event), 'no $all position (EventStoreDB older than 22.6?)');
          events.push(decodeDriverEvent(event, event.position.commit));
        }
      } catch (error) {
        if (error instanceof Error && isCommandError(error) && error.type === ErrorType.STREAM_NOT_FOUND) return [];
        throw translate(error, stream);
      }
      return events;
    },

    subscribeToAll(subscribeOptions = {}) {
      ensureOpen();
      return subscribe(subscribeOptions);
    },

    async headPosition() {
      ensureOpen();
      try {
        // $all also holds system events ($stats, $projections, …) that subscriptions filter out;
        // the head must be a position a subscriber can actually reach, so skip past them.
        for await (const resolved of client.readAll({ direction: BACKWARDS, fromPosition: END })) {
          const event = resolved.event;
          if (event && !event.type.startsWith('$') && !event.streamId.startsWith('$')) return event.position.commit;
        }
        return 0n;
      } catch (error) {
        throw translate(error);
      }
    },

    async identity() {
      ensureOpen();
      // Kept as custom metadata of a dedicated stream: its $metadata event is a system event, so
      // subscriptions never see it, and NO_STREAM makes the first writer the only one.
      const read = async () => {
        const { metadata } = await client.getStreamMetadata<{ vigilStoreIdentity?: string }>(identityStream);
        return typeof metadata?.vigilStoreIdentity === 'string' ? metadata.vigilStoreIdentity : undefined;
      };
      try {
        const existing = await read();
        if (existing) return existing;
        await client
          .setStreamMetadata(identityStream, { vigilStoreIdentity: randomUUID() }, { expectedRevision: NO_STREAM })
          .catch((error: unknown) => {
            if (!(error instanceof Error && isCommandError(error) && error.type === ErrorType.WRONG_EXPECTED_VERSION))
              throw error;
          });
        const made = await read();
        if (!made) throw new InternalError('EventStoreDB did not keep the store identity');
        return made;
      } catch (error) {
        throw translate(error);
      }
    },

    async ping() {
      ensureOpen();
      try {
        for await (const _ of client.readAll({ maxCount: 1 })) break;
      } catch (error) {
        throw translate(error);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      closing.abort();
      await client.dispose();
      log?.debug('eventstoredb event store closed');
    },
  };
}

function toDriverRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  return BigInt(expected);
}

function locate(event: DriverRecordedEvent | AllStreamRecordedEvent): {
  stream: string;
  revision: bigint;
  position: unknown;
} {
  return { stream: event.streamId, revision: event.revision, position: event.position?.commit };
}

function decodeDriverEvent(event: DriverRecordedEvent | AllStreamRecordedEvent, position: bigint): RecordedEvent {
  if (!event.isJson) throw corruptEvent(locate(event), 'not a JSON event');
  return decodeStoredEvent({
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    stream: event.streamId,
    revision: Number(event.revision),
    position,
  });
}

/** Turns driver errors into the project's own; nothing from the driver leaks past here. */
function translate(error: unknown, stream?: string): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof Error && isCommandError(error)) {
    switch (error.type) {
      case ErrorType.WRONG_EXPECTED_VERSION:
        return new ConcurrencyError(`Stream ${stream ?? '?'} is not at the expected revision`, {
          cause: error,
          details: {
            stream,
            expectedRevision: String(error.expectedVersion),
            actualRevision: String(error.actualVersion),
          },
        });
      case ErrorType.STREAM_DELETED:
        return new ConflictError(`Stream ${stream ?? '?'} was deleted`, { cause: error });
      case ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED:
        return new PayloadTooLargeError(`Append to ${stream ?? '?'} exceeds EventStoreDB's maximum append size`, {
          cause: error,
        });
      default:
        return new UnavailableError(`EventStoreDB unavailable (${error.type}): ${error.message}`, { cause: error });
    }
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && unavailableGrpcCodes.has(code)) {
    return new UnavailableError(`EventStoreDB unavailable: ${(error as Error).message}`, { cause: error });
  }
  if (typeof code === 'string' && /^(ECONN|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE)/.test(code)) {
    return new UnavailableError(`EventStoreDB unreachable: ${(error as Error).message}`, { cause: error });
  }
  return new UnavailableError(
    `EventStoreDB request failed: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}
