import type { Lifecycle, Logger } from '#core';
import { createAnalyticsStore, createStateStoreTokens, withChangeTokens, type AnalyticsStore } from '#analytics';
import { artifactAdapter, createArtifactStore, type ArtifactStore } from '#artifacts';
import { createMessageBus, topics, type MessageBus } from '#bus';
import { createEventStore, eventStoreAdapter, type EventStore } from '#eventstore';
import type { ReadinessCheck } from '#http';
import { createStateStore, type StateStore } from '#statestore';
import type { PlatformConfig } from './env.ts';

export type Topics = { [K in keyof typeof topics]: string };

export interface Platform {
  eventStore: EventStore;
  stateStore: StateStore;
  bus: MessageBus | undefined;
  analytics: AnalyticsStore | undefined;
  /** Screenshots, traces and failing response bodies of runs (written by runners, served by the API). */
  artifacts?: ArtifactStore;
  /** VIGIL_ARTIFACT_RETENTION_DAYS: runners delete older artifacts; readers mark them expired. */
  artifactRetentionDays?: number;
  readiness: ReadinessCheck[];
  /** Topic names, with the configured prefix. */
  topics: Topics;
  /** Consumer-group name with the configured prefix. */
  group(name: string): string;
  /** Which adapter each port runs on, for logs and /ready. */
  adapters: Record<string, string>;
}

export interface PlatformNeeds {
  bus?: boolean;
  analytics?: boolean;
  clientId: string;
}

/**
 * Opens the adapters an app needs, chosen by configuration alone: embedded by default,
 * distributed when the URL is set. Every connection opened here is closed by the lifecycle.
 */
export async function createPlatform(
  config: PlatformConfig,
  log: Logger,
  lifecycle: Lifecycle,
  needs: PlatformNeeds,
): Promise<Platform> {
  const readiness: ReadinessCheck[] = [];
  const adapters: Record<string, string> = {};

  const eventStore = await createEventStore({
    eventStoreUrl: config.EVENTSTORE_URL,
    eventStoreSchema: config.EVENTSTORE_SCHEMA,
    dataDir: config.DATA_DIR,
    log,
  });
  lifecycle.add('event-store', () => eventStore.close());
  readiness.push({ name: 'eventStore', check: () => eventStore.ping() });
  adapters.eventStore = eventStoreAdapter(config.EVENTSTORE_URL);

  const stateStore = await createStateStore({
    redisUrl: config.REDIS_URL,
    keyPrefix: config.REDIS_KEY_PREFIX,
    dataDir: config.DATA_DIR,
    log,
  });
  lifecycle.add('state-store', () => stateStore.close());
  readiness.push({ name: 'stateStore', check: () => stateStore.ping() });
  adapters.stateStore = config.REDIS_URL ? 'redis' : 'sqlite';

  const prefix = config.KAFKA_TOPIC_PREFIX;
  const names: Topics = {
    checkResults: prefix + topics.checkResults,
    checkResultsDlq: prefix + topics.checkResultsDlq,
    alertEvents: prefix + topics.alertEvents,
  };

  let bus: MessageBus | undefined;
  if (needs.bus) {
    bus = await createMessageBus({
      kafkaBrokers: config.KAFKA_BROKERS,
      dataDir: config.DATA_DIR,
      clientId: needs.clientId,
      log,
    });
    lifecycle.add('message-bus', () => bus?.close());
    const partitions = config.KAFKA_TOPIC_PARTITIONS;
    await bus.ensureTopics(Object.values(names).map((name) => ({ name, partitions })));
    readiness.push({ name: 'messageBus', check: () => bus!.ping() });
    adapters.messageBus = config.KAFKA_BROKERS ? 'kafka' : 'sqlite';
  }

  let analytics: AnalyticsStore | undefined;
  if (needs.analytics) {
    const store = await createAnalyticsStore({
      clickhouseUrl: config.CLICKHOUSE_URL,
      clickhouseDatabase: config.CLICKHOUSE_DATABASE,
      dataDir: config.DATA_DIR,
      log,
    });
    lifecycle.add('analytics-store', () => store.close());
    // Every write of results renews the checks' change tokens, which the API's check window reads.
    analytics = withChangeTokens(store, createStateStoreTokens(stateStore));
    await analytics.migrate();
    readiness.push({ name: 'analyticsStore', check: () => analytics!.ping() });
    adapters.analyticsStore = config.CLICKHOUSE_URL ? 'clickhouse' : 'duckdb';
  }

  // Opens nothing until used (a directory, or an S3 client), so every app has one at no cost.
  const artifacts = createArtifactStore(config);
  lifecycle.add('artifact-store', () => artifacts.close());
  adapters.artifactStore = artifactAdapter(config);
  if (config.ARTIFACTS_URL) readiness.push({ name: 'artifactStore', check: () => artifacts.ping() });

  log.info({ adapters }, 'adapters ready');
  const artifactRetentionDays = config.VIGIL_ARTIFACT_RETENTION_DAYS;
  return {
    eventStore,
    stateStore,
    bus,
    analytics,
    artifacts,
    artifactRetentionDays,
    readiness,
    adapters,
    topics: names,
    group: (name) => prefix + name,
  };
}
