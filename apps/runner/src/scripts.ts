import type { Logger } from '#core';
import type { ReadinessCheck } from '#http';
import type { ScriptRunner } from '#probes';
import { runtimesRoot } from '#runtimes';
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
}): RunnerScripts {
  const logger = options.logger.child({ component: 'scripts' });
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
      await scripts.close();
      await sandbox.close();
    },
  };
}
