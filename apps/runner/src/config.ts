import { z } from 'zod';
import { env, parseConfig } from '#core';
import { platformEnv, runnerEnv } from '#platform';

/** The runner's own settings, also read by the standalone process that embeds it. */
export const runnerAppEnv = {
  ...runnerEnv,
  /** Runs at once in this process. */
  VIGIL_RUNNER_CONCURRENCY: env.int(200, 1, 10_000),
  /** Runs at once per account in this process, so one tenant cannot take every slot. */
  VIGIL_RUNNER_ACCOUNT_CONCURRENCY: env.int(50, 1, 10_000),
  /**
   * Script checks (MULTI_STEP, PLAYWRIGHT, BROWSER with a script) at once in this process: each is
   * a sandboxed Node (512 MiB cap; 1.5 GiB with Chromium), so far fewer than other runs.
   */
  VIGIL_RUNNER_SCRIPT_CONCURRENCY: env.int(4, 1, 1_000),
  /**
   * How long a claimed run is leased. A replica that dies mid-run leaves its runs to the others
   * after this; a run's hard timeout is kept below it, so a live run is never taken over.
   */
  VIGIL_RUNNER_LEASE_MS: env.int(75_000, 5_000, 600_000),
  /**
   * How late a run may start, as a fraction of its check's frequency (at least 5 s), before its
   * window is skipped rather than run late: an overloaded runner keeps to the schedule and counts
   * what it could not run.
   */
  VIGIL_RUNNER_MAX_LATENESS: z.coerce.number().min(0.01).max(1).default(0.08),
  /**
   * Install the usable runtimes this host lacks when the runner starts (in the background, from
   * the npm registry). Off where runtimes are baked into the image or installed by hand.
   */
  VIGIL_RUNTIMES_INSTALL: env.bool(true),
};

export const runnerConfigSchema = z.object({
  ...platformEnv,
  ...runnerAppEnv,
  /** Port of the operations server: /health, /ready, /metrics. */
  PORT: env.port(9464),
  HOST: z.string().default('0.0.0.0'),
});
export type RunnerConfig = z.output<typeof runnerConfigSchema>;

export function loadRunnerConfig(source: Record<string, string | undefined> = process.env): RunnerConfig {
  return parseConfig(runnerConfigSchema, source);
}
