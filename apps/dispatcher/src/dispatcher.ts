import type { Registry } from 'prom-client';
import { parseAlertEvent, type AlertEvent } from '#alerting';
import { ConfigError, createSecretBox, InternalError, parseEncryptionKey, type Lifecycle, type Logger } from '#core';
import { channelEndpoints, DeliveryStore, Dispatcher, LocationWatch } from '#notify';
import { deliveriesMayReachPrivate, type Platform } from '#platform';
import { PrivateLocationReads, ReadModels } from '#readmodels';
import type { DispatcherConfig } from './config.ts';

export const DISPATCHER_GROUP = 'vigil-dispatcher';

/**
 * How the consumer feeds the Dispatcher (bench/webhooks drives it the same way). A handler call
 * takes at most `batch` alert events of one partition, and its offsets are committed once every
 * record of it is durable (a larger batch would hold the partition longer between Kafka
 * heartbeats, which kafkajs sends only between batches). The Dispatcher runs it in steps of
 * `step`, `depth` at once, so one step's last attempts and group commit overlap the next step's
 * attempts. `partitions` batches are handled at once, so a batch's end, until it is
 * acknowledged, overlaps another partition's batch (alerts of one check share a partition, which
 * is still read in order). In flight at most: partitions × batch events, and the dispatcher's
 * concurrency in attempts (shared by every step).
 */
export const DISPATCHER_FEED = { batch: 500, step: 250, depth: 2, partitions: 2 } as const;

/** Consumes alert events (fresh deliveries) and runs the durable retry loop. */
export async function startDispatcher(deps: {
  platform: Platform;
  config: DispatcherConfig;
  log: Logger;
  lifecycle: Lifecycle;
  metrics?: Registry;
  userAgent: string;
}): Promise<Dispatcher> {
  const { bus, stateStore } = deps.platform;
  const { config } = deps;
  if (!bus) throw new InternalError('the dispatcher needs the message bus');
  if (!config.VIGIL_ENCRYPTION_KEY)
    throw new ConfigError('VIGIL_ENCRYPTION_KEY: required to decrypt alert channel secrets');
  const log = deps.log.child({ component: 'dispatcher' });
  const locations = new PrivateLocationReads(stateStore);
  const dispatcher = new Dispatcher({
    readModels: new ReadModels(stateStore),
    store: new DeliveryStore(stateStore),
    box: createSecretBox(parseEncryptionKey(config.VIGIL_ENCRYPTION_KEY)),
    // The Dispatcher adds its own `component` child; a second one here would repeat the key.
    log: deps.log,
    metrics: deps.metrics,
    timeoutMs: config.VIGIL_WEBHOOK_TIMEOUT_MS,
    retry: { maxRetries: config.VIGIL_WEBHOOK_MAX_RETRIES, delayMs: config.VIGIL_WEBHOOK_RETRY_DELAY_MS },
    allowPrivate: deliveriesMayReachPrivate(config),
    userAgent: deps.userAgent,
    publicUrl: config.VIGIL_PUBLIC_URL,
    region: config.VIGIL_REGION,
    // The setting bounds what one receiver sees; across receivers the process runs twice that,
    // so one slow or hanging receiver holds at most half of the slots.
    concurrency: config.VIGIL_WEBHOOK_CONCURRENCY * 2,
    perOrigin: config.VIGIL_WEBHOOK_CONCURRENCY,
    channels: channelEndpoints(config),
    locations,
    stepSize: DISPATCHER_FEED.step,
    pipelineDepth: DISPATCHER_FEED.depth,
  });
  dispatcher.start();
  deps.lifecycle.add('dispatcher-retries', () => dispatcher.stop());
  const watch = new LocationWatch({
    store: stateStore,
    locations,
    deliver: (alerts) => dispatcher.handleLocationAlerts(alerts),
    unavailableAfterMs: config.VIGIL_PRIVATE_LOCATION_UNAVAILABLE_MS,
    log: deps.log,
  });
  watch.start();
  deps.lifecycle.add('location-watch', () => watch.stop());
  const consumer = await bus.consume({
    groupId: deps.platform.group(DISPATCHER_GROUP),
    topics: [deps.platform.topics.alertEvents],
    fromBeginning: true,
    maxBatchSize: DISPATCHER_FEED.batch,
    partitionsConcurrently: DISPATCHER_FEED.partitions,
    retry: { initialMs: 500, maxMs: 30_000 },
    handler: async (batch) => {
      const events: AlertEvent[] = [];
      for (const message of batch) {
        const parsed = parseAlertEvent(safeJson(message.value));
        if (parsed.ok) events.push(parsed.value);
        else
          log.error(
            { partition: message.partition, offset: message.offset, reason: parsed.message },
            'invalid alert event skipped',
          );
      }
      await dispatcher.handleAlerts(events);
    },
    onError: (error, attempt) => log.warn({ err: error, attempt }, 'alert event batch failed; retrying'),
  });
  deps.lifecycle.add('dispatcher-consumer', () => consumer.stop());
  return dispatcher;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
