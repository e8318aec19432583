import { join } from 'node:path';
import type { Logger } from '#core';
import { createEventStoreDbEventStore } from './eventstoredb.ts';
import type { EventStore } from './port.ts';
import { createPostgresEventStore } from './postgres.ts';
import { createSqliteEventStore } from './sqlite.ts';

export interface EventStoreConfig {
  /** EVENTSTORE_URL: postgres:// selects PostgreSQL, esdb:// EventStoreDB; unset is the embedded SQLite file. */
  eventStoreUrl?: string | undefined;
  /** EVENTSTORE_SCHEMA: the PostgreSQL schema holding the events (default vigil). */
  eventStoreSchema?: string | undefined;
  /** DATA_DIR; the embedded store lives at <dataDir>/events.sqlite. */
  dataDir: string;
  log: Logger;
}

export type EventStoreAdapter = 'postgres' | 'eventstoredb' | 'sqlite';

/** Which adapter a URL selects. */
export function eventStoreAdapter(url: string | undefined): EventStoreAdapter {
  if (!url) return 'sqlite';
  return /^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'eventstoredb';
}

/** PostgreSQL or EventStoreDB by the URL's scheme; the embedded SQLite file when no URL is set. */
export async function createEventStore(config: EventStoreConfig): Promise<EventStore> {
  const adapter = eventStoreAdapter(config.eventStoreUrl);
  if (adapter === 'postgres') {
    config.log.info({ adapter, schema: config.eventStoreSchema ?? 'vigil' }, 'event store selected');
    return createPostgresEventStore({
      connectionString: config.eventStoreUrl ?? '',
      schema: config.eventStoreSchema,
      log: config.log,
    });
  }
  if (adapter === 'eventstoredb') {
    config.log.info({ adapter }, 'event store selected');
    return createEventStoreDbEventStore({ connectionString: config.eventStoreUrl ?? '', log: config.log });
  }
  const path = join(config.dataDir, 'events.sqlite');
  config.log.info({ adapter, path }, 'event store selected');
  return createSqliteEventStore({ path, log: config.log });
}
