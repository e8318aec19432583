import { RuntimeCatalogue as CalendarCatalogue, type Runtime, type RuntimeInstallations } from '#runtimes';

// The catalogue lives in #runtimes, beside the installs it describes; the API keeps its imports here.
export { runtimeSchema, loadCatalogue, createRuntimeInstallations, runtimesRoot, type Runtime } from '#runtimes';
export type { RuntimeInstallations };

/**
 * The API's catalogue: stages follow the app's clock, and it can say whether a runtime is installed
 * in this host's install root (VIGIL_RUNTIMES_DIR). Runners install every usable runtime when they
 * start; in a distributed deployment each runner's /ready reports its own.
 */
export class RuntimeCatalogue extends CalendarCatalogue {
  constructor(
    runtimes: Runtime[],
    clock: () => Date,
    readonly installations: RuntimeInstallations,
  ) {
    super(runtimes, clock);
  }
}
