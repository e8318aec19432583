import type { Logger } from '#core';
import type { ReadinessCheck } from '#http';
import type { ScriptRunner } from '#probes';
import { installMissing, runtimesRoot } from '#runtimes';
import { createSandbox } from '#sandbox';
import { createScriptRunner } from '#scripts';

export interface RunnerScripts {
  scripts: ScriptRunner;
  /** For /ready: fails with "sandbox unavailable: …" where bubblewrap cannot create namespaces. */
  readiness: ReadinessCheck;
  /** Closes the script runner, then the sandbox (its egress proxy and state). */
  close(): Promise<void>;
}

/**
 * The sandbox and the script runner of a process that runs script checks (a runner, or the API for
 * test and trigger). Script checks run only inside the sandbox: where it is unavailable they fail
 * with its reason, and there is no way to run them without it.
 */
export function createRunnerScripts(options: {
  runtimesDir: string | undefined;
  chromiumPath: string | undefined;
  logger: Logger;
  /** Debian's bubblewrap by default; tests point it at a missing binary to see the sandbox refuse. */
  bwrapPath?: string;
  /**
   * Installs the usable runtimes this host lacks, in the background (each is an `npm ci` of its
   * committed lockfile). Until one is installed, its script checks fail saying it is missing.
   */
  installRuntimes?: boolean;
}): RunnerScripts {
  const logger = options.logger.child({ component: 'scripts' });
  const stopInstall = new AbortController();
  let installing: Promise<void> = Promise.resolve();
  if (options.installRuntimes) {
    const root = runtimesRoot(options.runtimesDir);
    installing = installMissing(root, { logger, now: new Date(), signal: stopInstall.signal }).then(
      (installed) => logger.info({ root, runtimes: installed.map((runtime) => runtime.name) }, 'runtimes ready'),
      (error: unknown) => {
        if (!stopInstall.signal.aborted)
          logger.error({ err: error, root }, 'runtimes not installed: their script checks fail until they are');
      },
    );
  }
  const sandbox = createSandbox({ logger, ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}) });
  const scripts = createScriptRunner({
    sandbox,
    runtimesRoot: runtimesRoot(options.runtimesDir),
    ...(options.chromiumPath ? { chromiumPath: options.chromiumPath } : {}),
    logger,
  });
  return {
    scripts,
    readiness: {
      name: 'sandbox',
      check: async () => {
        const ready = await scripts.ready();
        if (!ready.ok)
          throw new Error(
            ready.reason.startsWith('sandbox unavailable') ? ready.reason : `sandbox unavailable: ${ready.reason}`,
          );
      },
    },
    async close() {
      stopInstall.abort();
      await installing;
      await scripts.close();
      await sandbox.close();
    },
  };
}
