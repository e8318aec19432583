import { join } from 'node:path';
import type { Logger } from '#core';
import { createEventStoreDbEventStore } from './eventstoredb.ts';
import type { EventStore } from './port.ts';
import { createSqliteEventStore } from './sqlite.ts';

export interface EventStoreConfig {
  /** EVENTSTORE_URL; when set, EventStoreDB is used. */
  eventStoreUrl?: string | undefined;
  /** DATA_DIR; the embedded store lives at <dataDir>/events.sqlite. */
  dataDir: string;
  log: Logger;
}

/** EventStoreDB when a URL is configured, else the embedded SQLite file. */
export function createEventStore(config: EventStoreConfig): EventStore {
  if (config.eventStoreUrl) {
    config.log.info({ adapter: 'eventstoredb' }, 'event store selected');
    return createEventStoreDbEventStore({ connectionString: config.eventStoreUrl, log: config.log });
  }
  const path = join(config.dataDir, 'events.sqlite');
  config.log.info({ adapter: 'sqlite', path }, 'event store selected');
  return createSqliteEventStore({ path, log: config.log });
}
