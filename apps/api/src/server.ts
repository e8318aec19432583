import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import {
  ConfigError,
  createLogger,
  createSecretBox,
  Lifecycle,
  parseEncryptionKey,
  sha256Hex,
  type Logger,
  type SecretBox,
} from '#core';
import { createMetricsRegistry } from '#http';
import { checksMayReachPrivate, createPlatform, deliveriesMayReachPrivate, type Platform } from '#platform';
import { createCheckpointWaiter } from '#projections';
import { channelEndpoints, DeliveryStore, Dispatcher } from '#notify';
import { createBusSink, createCheckLookup, createDirectSink } from '#pipeline';
import { createProber, type ScriptRunner } from '#probes';
import { createSandbox } from '#sandbox';
import { createScriptRunner } from '#scripts';
import { PrivateLocationReads, type ReadModels } from '#readmodels';
import { buildApp } from './app.ts';
import { CommandRunner, type ReadModelSync } from './commands.ts';
import { createReadCache } from './read-cache.ts';
import type { ApiConfig } from './config.ts';
import { createRuntimeInstallations, loadCatalogue, RuntimeCatalogue, runtimesRoot } from './runtimes/catalogue.ts';
import { ChannelService } from './services/channels.ts';
import { CheckRunService } from './services/check-runs.ts';
import { HeartbeatService } from './services/heartbeats.ts';
import { openPingJournal } from './services/ping-journal.ts';
import { createLocationCatalogue, PUBLIC_LOCATIONS } from './locations.ts';
import { createServices } from './services/index.ts';
import { version } from './version.ts';

/** Where the platform admin key's hash is kept when it was generated rather than configured. */
export const ADMIN_KEY_HASH_KEY = 'platform:admin-key-sha256';
export const CONTROL_PLANE_PROJECTION = 'control-plane';

export interface RunningApi {
  app: FastifyInstance;
  platform: Platform;
  url: string;
  lifecycle: Lifecycle;
}

export interface StartApiOptions {
  log?: Logger;
  lifecycle?: Lifecycle;
  /** Adapters already opened by the caller (the standalone process shares them between apps). */
  platform?: Platform;
  /** How writes wait for read models; defaults to polling the projector's checkpoint. */
  sync?: ReadModelSync;
  /** A registry shared with the other apps of the process, so /metrics shows them all. */
  metrics?: Registry;
  /** Runs script checks for test and trigger; the standalone process shares its runner's. */
  scripts?: ScriptRunner;
}

/** Opens the adapters, builds the app and listens. The lifecycle closes all of it, server first. */
export async function startApi(config: ApiConfig, options: StartApiOptions = {}): Promise<RunningApi> {
  const log = options.log ?? createLogger({ level: config.LOG_LEVEL, name: 'api' });
  const lifecycle = options.lifecycle ?? new Lifecycle(log);
  try {
    if (!config.VIGIL_ENCRYPTION_KEY)
      throw new ConfigError(
        'VIGIL_ENCRYPTION_KEY: required (32 bytes as 64 hex characters); secrets are encrypted with it',
      );
    const box = createSecretBox(parseEncryptionKey(config.VIGIL_ENCRYPTION_KEY));
    const metrics = options.metrics ?? createMetricsRegistry();
    const platform =
      options.platform ??
      (await createPlatform(config, log, lifecycle, { bus: true, analytics: true, clientId: 'vigil-api' }));
    const cache = createReadCache(config, platform, log, metrics);
    lifecycle.add('read-model invalidation', () => cache.invalidation.close());
    const { readModels } = cache;
    const sync = cache.publishing(
      options.sync ?? createCheckpointWaiter(platform.stateStore, CONTROL_PLANE_PROJECTION),
    );
    const commands = new CommandRunner(
      platform.eventStore,
      sync,
      log.child({ component: 'commands' }),
      config.VIGIL_READ_YOUR_WRITES_TIMEOUT_MS,
    );
    const locations = createLocationCatalogue({
      publicLocations: [
        ...(config.VIGIL_LOCATIONS ?? PUBLIC_LOCATIONS),
        config.VIGIL_RUNNER_LOCATION,
        config.VIGIL_RUNNER_DEFAULT_LOCATION,
      ],
      privateSlugs: async (accountId) =>
        (await new PrivateLocationReads(platform.stateStore).locations(accountId)).map((v) => v.location.slugName),
    });
    const services = createServices({
      commands,
      readModels,
      runtimes: new RuntimeCatalogue(
        loadCatalogue(),
        () => new Date(commands.now()),
        createRuntimeInstallations(runtimesRoot(config.VIGIL_RUNTIMES_DIR)),
      ),
      locations,
      box,
      stateStore: platform.stateStore,
      publicUrl: config.VIGIL_PUBLIC_URL,
      privateLocationUnavailableMs: config.VIGIL_PRIVATE_LOCATION_UNAVAILABLE_MS,
    });

    const configuredAdmin = config.VIGIL_ADMIN_KEY ? sha256Hex(config.VIGIL_ADMIN_KEY) : null;
    let storedAdmin: string | null = null;
    const adminKeyHash = async () =>
      configuredAdmin ?? (storedAdmin ??= await platform.stateStore.get(ADMIN_KEY_HASH_KEY));

    const { bus, analytics } = platform;
    if (!bus || !analytics) throw new ConfigError('the API needs the message bus and the analytics store');
    // Embedded: straight into DuckDB. Distributed: Kafka first; the ingestor writes ClickHouse.
    const topic = platform.topics.checkResults;
    const sink =
      platform.adapters.messageBus === 'kafka' ? createBusSink(bus, topic) : createDirectSink(analytics, bus, topic);
    // Distributed, a ping is durable once Kafka has it. Embedded, once its journal commits; the
    // journal hands it on to DuckDB and the bus afterwards.
    let pingSink = sink;
    if (platform.adapters.messageBus !== 'kafka') {
      const journal = openPingJournal({
        path: join(config.DATA_DIR, 'pings.sqlite'),
        analytics,
        bus,
        topic,
        dlqTopic: platform.topics.checkResultsDlq,
        log,
      });
      lifecycle.add('ping journal', () => journal.close());
      pingSink = journal.sink;
    }
    const heartbeats = new HeartbeatService({
      readModels,
      stateStore: platform.stateStore,
      sink: pingSink,
      location: config.VIGIL_RUNNER_DEFAULT_LOCATION,
      perTokenPerMinute: config.VIGIL_PING_RATE_PER_MINUTE,
    });
    lifecycle.add('heartbeat pings', () => heartbeats.flush());
    let scripts = options.scripts;
    if (!scripts) {
      // Test and trigger run script checks here, in the same sandbox as a runner (never without it).
      const sandbox = createSandbox({ logger: log.child({ component: 'sandbox' }) });
      const owned = createScriptRunner({
        sandbox,
        runtimesRoot: runtimesRoot(config.VIGIL_RUNTIMES_DIR),
        chromiumPath: config.CHROMIUM_PATH,
        logger: log.child({ component: 'scripts' }),
      });
      lifecycle.add('scripts', async () => {
        await owned.close();
        await sandbox.close();
      });
      scripts = owned;
    }
    const probes = createProber({
      chromiumPath: config.CHROMIUM_PATH,
      headlessShellPath: config.CHROMIUM_HEADLESS_SHELL_PATH,
      scripts,
      logger: log.child({ component: 'probes' }),
    });
    lifecycle.add('probes', () => probes.close());
    const runs = new CheckRunService({
      readModels,
      checks: services.checks,
      box,
      sink,
      prober: probes,
      location: config.VIGIL_RUNNER_DEFAULT_LOCATION,
      allowPrivate: checksMayReachPrivate(config),
      locations,
      runtimes: services.runtimes,
      artifacts: platform.artifacts,
    });
    const app = await buildApp({
      config,
      log,
      platform,
      metrics,
      services,
      adminKeyHash,
      ingestKeyHash: config.VIGIL_INGEST_KEY ? sha256Hex(config.VIGIL_INGEST_KEY) : null,
      ingest: { lookup: createCheckLookup(readModels), sink },
      alerting: createAlerting(config, readModels, platform, box, commands, log),
      runs,
      heartbeats,
      invalidation: cache.invalidation,
    });
    // Added last so it closes first: stop taking requests and drain in-flight ones before adapters close.
    lifecycle.add('http', () => app.close());
    const url = await app.listen({ port: config.PORT, host: config.HOST });
    log.info({ url, adapters: platform.adapters }, 'api listening');
    return { app, platform, url, lifecycle };
  } catch (error) {
    if (!options.lifecycle) await lifecycle.stop();
    throw error;
  }
}

/** Channel routes and the dispatcher they use for test messages (its retry loop runs in the dispatcher app). */
function createAlerting(
  config: ApiConfig,
  readModels: ReadModels,
  platform: Platform,
  box: SecretBox,
  commands: CommandRunner,
  log: Logger,
) {
  const deliveries = new DeliveryStore(platform.stateStore);
  const userAgent = `Vigil/${version}`;
  const dispatcher = new Dispatcher({
    readModels,
    store: deliveries,
    box,
    log,
    timeoutMs: config.VIGIL_WEBHOOK_TIMEOUT_MS,
    retry: { maxRetries: config.VIGIL_WEBHOOK_MAX_RETRIES, delayMs: config.VIGIL_WEBHOOK_RETRY_DELAY_MS },
    allowPrivate: deliveriesMayReachPrivate(config),
    userAgent,
    publicUrl: config.VIGIL_PUBLIC_URL,
    region: config.VIGIL_REGION,
    channels: channelEndpoints(config),
  });
  return {
    channels: new ChannelService(commands, readModels, box, {
      allowPrivate: deliveriesMayReachPrivate(config),
      emailConfigured: config.VIGIL_SMTP_URL !== undefined,
    }),
    dispatcher,
    deliveries,
    userAgent,
    region: config.VIGIL_REGION,
    publicUrl: config.VIGIL_PUBLIC_URL,
  };
}
