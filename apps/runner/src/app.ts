import type { Registry } from 'prom-client';
import type { Lifecycle, Logger } from '#core';
import type { Platform } from '#platform';
import type { ResultSink } from '#pipeline';
import type { RunnerConfig } from './config.ts';
import { startRunner, type Runner } from './runner.ts';

type RunnerAppConfig = Pick<
  RunnerConfig,
  | 'VIGIL_RUNNER_LOCATION'
  | 'VIGIL_RUNNER_DEFAULT_LOCATION'
  | 'VIGIL_RUNNER_ALLOW_PRIVATE'
  | 'VIGIL_RUNNER_CONCURRENCY'
  | 'VIGIL_RUNNER_ACCOUNT_CONCURRENCY'
  | 'VIGIL_RUNNER_LEASE_MS'
  | 'VIGIL_ENCRYPTION_KEY'
  | 'CHROMIUM_PATH'
>;

/** Starts the runner from its configuration and registers its drain with the lifecycle. */
export function startRunnerApp(context: {
  config: RunnerAppConfig;
  platform: Platform;
  log: Logger;
  lifecycle: Lifecycle;
  metrics?: Registry;
  sink?: ResultSink;
}): Runner {
  const { config } = context;
  const runner = startRunner({
    platform: context.platform,
    log: context.log,
    metrics: context.metrics,
    sink: context.sink,
    settings: {
      location: config.VIGIL_RUNNER_LOCATION,
      defaultLocation: config.VIGIL_RUNNER_DEFAULT_LOCATION,
      allowPrivate: config.VIGIL_RUNNER_ALLOW_PRIVATE,
      concurrency: config.VIGIL_RUNNER_CONCURRENCY,
      accountConcurrency: config.VIGIL_RUNNER_ACCOUNT_CONCURRENCY,
      leaseMs: config.VIGIL_RUNNER_LEASE_MS,
      encryptionKey: config.VIGIL_ENCRYPTION_KEY,
      chromiumPath: config.CHROMIUM_PATH,
    },
  });
  context.lifecycle.add('runner', () => runner.stop());
  return runner;
}
