import { Counter, Gauge, type Registry } from 'prom-client';
import { createCheckWindow, createStateStoreTokens, type AnalyticsStore, type CheckWindow } from '#analytics';
import type { StateStore } from '#statestore';

/**
 * The API's check window (#analytics createCheckWindow), holding up to maxRows runs; undefined
 * when maxRows is 0. It renews nothing itself: the platform's analytics store renews a check's
 * change token on every write. Its counters are read when /metrics is scraped.
 */
export function createApiCheckWindow(deps: {
  analytics: AnalyticsStore;
  stateStore: StateStore;
  maxRows: number;
  registry: Registry;
  log: { warn(details: object, message: string): void };
}): CheckWindow | undefined {
  if (deps.maxRows <= 0) return undefined;
  const window = createCheckWindow(deps.analytics, {
    tokens: createStateStoreTokens(deps.stateStore),
    maxRows: deps.maxRows,
    log: deps.log,
  });
  for (const [name, help, read] of [
    ['vigil_analytics_window_hits_total', 'Run aggregates answered from the check window', () => window.stats().hits],
    [
      'vigil_analytics_window_misses_total',
      'Run aggregates the window could not answer (not held, changed or too old): the engine answered',
      () => window.stats().misses,
    ],
    ['vigil_analytics_window_loads_total', 'Checks loaded into the window from the engine', () => window.stats().loads],
  ] as const)
    new Counter({
      name,
      help,
      registers: [deps.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  for (const [name, help, read] of [
    ['vigil_analytics_window_checks', 'Checks held in the window', () => window.stats().checks],
    ['vigil_analytics_window_rows', 'Runs held in the window', () => window.stats().rows],
  ] as const)
    new Gauge({
      name,
      help,
      registers: [deps.registry],
      collect() {
        this.set(read());
      },
    });
  return window;
}
