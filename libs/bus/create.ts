import { join } from 'node:path';
import type { Logger } from '#core';
import { createKafkaBus } from './kafka.ts';
import type { MessageBus } from './port.ts';
import { createSqliteBus } from './sqlite.ts';

export interface MessageBusConfig {
  /** KAFKA_BROKERS, split; when non-empty, Kafka is used. */
  kafkaBrokers?: string[] | undefined;
  /** DATA_DIR; the embedded bus lives at <dataDir>/bus.sqlite. */
  dataDir: string;
  clientId: string;
  log: Logger;
}

/** Kafka when brokers are configured, else the embedded SQLite bus. */
export function createMessageBus(config: MessageBusConfig): MessageBus {
  if (config.kafkaBrokers && config.kafkaBrokers.length > 0) {
    config.log.info({ adapter: 'kafka', brokers: config.kafkaBrokers }, 'message bus selected');
    return createKafkaBus({ brokers: config.kafkaBrokers, clientId: config.clientId, log: config.log });
  }
  const path = join(config.dataDir, 'bus.sqlite');
  config.log.info({ adapter: 'sqlite', path }, 'message bus selected');
  return createSqliteBus({ path, log: config.log });
}
