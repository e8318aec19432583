import type { Registry } from 'prom-client';
import { startRetention } from '#artifacts';
import type { Lifecycle, Logger } from '#core';
import { checksMayReachPrivate, type Platform } from '#platform';
import type { ResultSink } from '#pipeline';
import type { ScriptRunner } from '#probes';
import { loadCatalogue, RuntimeCatalogue } from '#runtimes';
import type { RunnerConfig } from './config.ts';
import { startRunner, type Runner } from './runner.ts';
import { createRunnerScripts } from './scripts.ts';

type RunnerAppConfig = Pick<
  RunnerConfig,
  | 'VIGIL_RUNNER_LOCATION'
  | 'VIGIL_RUNNER_DEFAULT_LOCATION'
  | 'VIGIL_RUNNER_ALLOW_PRIVATE'
  | 'VIGIL_ALLOW_PRIVATE_TARGETS'
  | 'VIGIL_RUNNER_CONCURRENCY'
  | 'VIGIL_RUNNER_ACCOUNT_CONCURRENCY'
  | 'VIGIL_RUNNER_SCRIPT_CONCURRENCY'
  | 'VIGIL_RUNNER_LEASE_MS'
  | 'VIGIL_RUNNER_MAX_LATENESS'
  | 'VIGIL_ENCRYPTION_KEY'
  | 'CHROMIUM_PATH'
  | 'CHROMIUM_HEADLESS_SHELL_PATH'
  | 'VIGIL_RUNTIMES_DIR'
  | 'VIGIL_RUNTIMES_INSTALL'
  | 'VIGIL_ARTIFACT_RETENTION_DAYS'
>;

/** Starts the runner from its configuration and registers its drain with the lifecycle. */
export function startRunnerApp(context: {
  config: RunnerAppConfig;
  platform: Platform;
  log: Logger;
  lifecycle: Lifecycle;
  metrics?: Registry;
  sink?: ResultSink;
  /** A script runner to use instead of creating one (tests, or a process that already has one). */
  scripts?: ScriptRunner;
}): Runner {
  const { config } = context;
  let scripts = context.scripts;
  if (!scripts) {
    // Added before the runner, so the lifecycle closes it after the runner has drained.
    const created = createRunnerScripts({
      runtimesDir: config.VIGIL_RUNTIMES_DIR,
      chromiumPath: config.CHROMIUM_PATH,
      logger: context.log,
      installRuntimes: config.VIGIL_RUNTIMES_INSTALL,
    });
    context.platform.readiness.push(created.readiness);
    context.lifecycle.add('scripts', () => created.close());
    scripts = created.scripts;
    // Probes the sandbox and builds the harness now, so the first /ready and run do not wait for it.
    void scripts.ready().then((ready) => {
      if (ready.ok) context.log.info('script checks run in the sandbox');
      else context.log.warn({ reason: ready.reason }, 'script checks will fail: the sandbox is unavailable');
    });
  }
  const runner = startRunner({
    scripts,
    runtimes: new RuntimeCatalogue(loadCatalogue(), () => new Date()),
    platform: context.platform,
    log: context.log,
    metrics: context.metrics,
    sink: context.sink,
    settings: {
      location: config.VIGIL_RUNNER_LOCATION,
      defaultLocation: config.VIGIL_RUNNER_DEFAULT_LOCATION,
      allowPrivate: checksMayReachPrivate(config),
      concurrency: config.VIGIL_RUNNER_CONCURRENCY,
      accountConcurrency: config.VIGIL_RUNNER_ACCOUNT_CONCURRENCY,
      scriptConcurrency: config.VIGIL_RUNNER_SCRIPT_CONCURRENCY,
      leaseMs: config.VIGIL_RUNNER_LEASE_MS,
      maxLateness: config.VIGIL_RUNNER_MAX_LATENESS,
      encryptionKey: config.VIGIL_ENCRYPTION_KEY,
      chromiumPath: config.CHROMIUM_PATH,
      headlessShellPath: config.CHROMIUM_HEADLESS_SHELL_PATH,
    },
  });
  context.lifecycle.add('runner', () => runner.stop());
  // Saturation is no reason to leave the load balancer: the flag is a detail, the check stays ok.
  context.platform.readiness.push({ name: 'runner', check: async () => ({ ...runner.saturation() }) });
  const artifacts = context.platform.artifacts;
  if (artifacts) {
    // Added after the runner, so it stops first; the store, opened before both, closes last.
    const retention = startRetention({
      store: artifacts,
      retentionDays: config.VIGIL_ARTIFACT_RETENTION_DAYS,
      log: context.log.child({ component: 'artifact-retention' }),
    });
    context.lifecycle.add('artifact-retention', () => retention.stop());
  }
  return runner;
}
