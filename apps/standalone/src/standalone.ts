import { createLogger, Lifecycle, type Logger } from '#core';
import { createMetricsRegistry } from '#http';
import { createPlatform, type Platform } from '#platform';
import { startStatusConsumer } from '#readmodels';
import { startApi, version, type RunningApi } from '../../api/index.ts';
import { startAlerter } from '../../alerter/index.ts';
import { startDispatcher } from '../../dispatcher/index.ts';
import { createRunnerScripts, startRunnerApp } from '../../runner/index.ts';
import { startIngestor } from '../../ingestor/index.ts';
import { startProjector } from '../../projector/index.ts';
import type { StandaloneConfig } from './config.ts';
import { ensureAdminKey, ensureEncryptionKey } from './local-secrets.ts';

export interface RunningStandalone {
  url: string;
  api: RunningApi;
  platform: Platform;
  lifecycle: Lifecycle;
  /** Set on the first start only, when this process generated the platform admin key. */
  generatedAdminKey: string | undefined;
  stop(): Promise<void>;
}

/**
 * Every server app in one process on the embedded adapters (or on whichever distributed ones
 * the environment names). `npm start` runs this; tests start it in-process.
 */
export async function startStandalone(
  loaded: StandaloneConfig,
  log: Logger = createLogger({ name: 'vigil', level: loaded.LOG_LEVEL }),
): Promise<RunningStandalone> {
  const config = {
    ...loaded,
    VIGIL_ENCRYPTION_KEY: ensureEncryptionKey(loaded.DATA_DIR, loaded.VIGIL_ENCRYPTION_KEY, log),
  };
  const lifecycle = new Lifecycle(log);
  try {
    const metrics = createMetricsRegistry();
    const platform = await createPlatform(config, log, lifecycle, {
      bus: true,
      analytics: true,
      clientId: 'vigil-standalone',
    });
    const generatedAdminKey = await ensureAdminKey(platform.stateStore, config.VIGIL_ADMIN_KEY, log);
    const apps = new Set(config.VIGIL_STANDALONE_APPS);
    const projector = apps.has('projector') ? await startProjector({ platform, log, lifecycle, metrics }) : undefined;
    // On the embedded bus the API writes DuckDB itself; with Kafka the ingestor does it.
    if (apps.has('ingestor') && platform.adapters.messageBus === 'kafka') {
      await startIngestor({ platform, log, lifecycle, metrics, batchSize: config.VIGIL_INGEST_BATCH_SIZE });
    }
    if (apps.has('alerter')) {
      await startAlerter({ platform, log, lifecycle, metrics });
      await startStatusConsumer({ ...platform, bus: platform.bus!, log, lifecycle });
    }
    if (apps.has('dispatcher'))
      await startDispatcher({ platform, config, log, lifecycle, metrics, userAgent: `Vigil/${version}` });
    // One sandbox and script runner for the runner's scheduled runs and the API's test and trigger.
    const scriptRunner = createRunnerScripts({
      runtimesDir: config.VIGIL_RUNTIMES_DIR,
      chromiumPath: config.CHROMIUM_PATH,
      logger: log,
      // The runner's start-up installs what is missing; an API-only process leaves it to runners.
      installRuntimes: apps.has('runner') && config.VIGIL_RUNTIMES_INSTALL,
    });
    lifecycle.add('scripts', () => scriptRunner.close());
    const scripts = scriptRunner.scripts;
    void scripts.ready().then((ready) => {
      if (!ready.ok) log.warn({ reason: ready.reason }, 'script checks will fail: the sandbox is unavailable');
    });
    if (apps.has('runner')) {
      platform.readiness.push(scriptRunner.readiness);
      await startRunnerApp({ config, platform, log, lifecycle, metrics, scripts }).ready;
    }
    const api = await startApi(config, { log, lifecycle, platform, sync: projector, metrics, scripts });
    return { url: api.url, api, platform, lifecycle, generatedAdminKey, stop: () => lifecycle.stop() };
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
}
