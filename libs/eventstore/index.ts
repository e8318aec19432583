export {
  eventMetadataSchema,
  type EventMetadata,
  type NewEvent,
  type RecordedEvent,
  type ExpectedRevision,
  type AppendResult,
  type SubscribeOptions,
  type EventStore,
} from './port.ts';
export { createSqliteEventStore, type SqliteEventStoreOptions } from './sqlite.ts';
export { createEventStoreDbEventStore, type EventStoreDbOptions } from './eventstoredb.ts';
export { createPostgresEventStore, type PostgresEventStoreOptions } from './postgres.ts';
export { createEventStore, eventStoreAdapter, type EventStoreConfig, type EventStoreAdapter } from './select.ts';
// The contract suite (./contract.ts, eventStoreContract) is deliberately not re-exported: it
// imports vitest, a dev dependency, and every app imports this file at start-up.
