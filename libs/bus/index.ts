export type {
  BusMessage,
  ConsumedMessage,
  TopicSpec,
  HandlerContext,
  RetryPolicy,
  ConsumeOptions,
  Consumer,
  MessageBus,
  PublishOptions,
} from './port.ts';
export { topics } from './topics.ts';
export { partitionFor } from './common.ts';
export { createKafkaBus, type KafkaBusOptions } from './kafka.ts';
export { createSqliteBus, type SqliteBusOptions, type SqliteMessageBus } from './sqlite.ts';
export { createMessageBus, type MessageBusConfig } from './create.ts';
// The contract suite (./contract.ts, messageBusContract) is deliberately not re-exported: it
// imports vitest, a dev dependency, and every app imports this file at start-up.
