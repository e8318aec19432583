import { ValidationError, type Logger } from '#core';
import {
  createEventStoreDbEventStore,
  createPostgresEventStore,
  createSqliteEventStore,
  type EventStore,
  type RecordedEvent,
} from '#eventstore';

/**
 * Opens an event store named by a URL:
 * - `postgres://user@host/db?schema=vigil` (schema defaults to vigil);
 * - `esdb://host:2113?tls=false`;
 * - `sqlite:/path/to/events.sqlite` (or a plain path ending in .sqlite).
 */
export async function openEventStore(url: string, log: Logger): Promise<EventStore> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? 'vigil';
    parsed.searchParams.delete('schema');
    return createPostgresEventStore({ connectionString: parsed.toString(), schema, log });
  }
  if (/^(esdb|esdb\+discover|kurrentdb|kdb):\/\//.test(url))
    return createEventStoreDbEventStore({ connectionString: url, log });
  if (url.startsWith('sqlite:') || url.endsWith('.sqlite'))
    return createSqliteEventStore({ path: url.replace(/^sqlite:(\/\/)?/, ''), log });
  throw new ValidationError(`"${url}" is not an event-store URL: use postgres://…, esdb://… or sqlite:<file>`);
}

export interface CopyOutcome {
  events: number;
  streams: number;
}

/**
 * Copies every event, in global order, from one store to an empty one: same streams, revisions,
 * ids, types, data and metadata. Each append carries the expected revision, so a second writer
 * on the target fails the copy instead of interleaving. Positions are the target's own, and so is
 * its identity: read models must be rebuilt from the target (npm run projections:rebuild).
 */
export async function copyEvents(
  from: EventStore,
  to: EventStore,
  options: { log: Logger; batchSize?: number; onProgress?: (copied: number, total: bigint) => void },
): Promise<CopyOutcome> {
  const batchSize = options.batchSize ?? 500;
  if ((await to.headPosition()) > 0n) {
    throw new ValidationError('--to: the target event store is not empty; copy into a new store (or schema)');
  }
  const head = await from.headPosition();
  const streams = new Set<string>();
  let copied = 0;
  let batch: RecordedEvent[] = [];
  const flush = async () => {
    const first = batch[0];
    if (!first) return;
    const expected = first.revision === 0 ? 'no_stream' : first.revision - 1;
    await to.append(
      first.stream,
      batch.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })),
      expected,
    );
    copied += batch.length;
    streams.add(first.stream);
    options.onProgress?.(copied, head);
    batch = [];
  };
  if (head === 0n) return { events: 0, streams: 0 };
  const stop = new AbortController();
  try {
    for await (const event of from.subscribeToAll({ signal: stop.signal })) {
      if (batch.length > 0 && (batch[0]!.stream !== event.stream || batch.length >= batchSize)) await flush();
      batch.push(event);
      if (event.position >= head) break;
    }
    await flush();
  } finally {
    stop.abort();
  }
  options.log.info({ events: copied, streams: streams.size, head: head.toString() }, 'events copied');
  return { events: copied, streams: streams.size };
}
