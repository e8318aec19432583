import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface RunnerMetrics {
  runs: Counter<'type' | 'outcome'>;
  delay: Histogram<'type'>;
  inFlight: Gauge;
  skipped: Counter<'location' | 'reason'>;
  maintenance: Counter;
  artifacts: Counter<'type'>;
}

/** Runs by type and outcome, schedule delay (actual start − planned start) and runs in flight. */
export function createRunnerMetrics(registry?: Registry): RunnerMetrics {
  const registers = registry ? [registry] : [];
  return {
    runs: new Counter({
      name: 'vigil_runner_runs_total',
      help: 'Check runs by check type and outcome (passed, degraded, failed, missed for heartbeats)',
      labelNames: ['type', 'outcome'],
      registers,
    }),
    delay: new Histogram({
      name: 'vigil_runner_schedule_delay_seconds',
      help: 'Actual start of a run minus its planned start',
      labelNames: ['type'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    inFlight: new Gauge({ name: 'vigil_runner_runs_in_flight', help: 'Runs in progress', registers }),
    skipped: new Counter({
      name: 'vigil_runner_windows_skipped_total',
      help: 'Windows skipped, not run late: reason saturated (the run would have started later than allowed) or runners-down (long past when claimed after an outage)',
      labelNames: ['location', 'reason'],
      registers,
    }),
    maintenance: new Counter({
      name: 'vigil_runner_maintenance_skipped_total',
      help: 'Scheduled runs skipped because a maintenance window that pauses runs covered the check',
      registers,
    }),
    artifacts: new Counter({
      name: 'vigil_runner_artifacts_kept_total',
      help: 'Screenshots, traces and response bodies written to the artifact store, by check type',
      labelNames: ['type'],
      registers,
    }),
  };
}
