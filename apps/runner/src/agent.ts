import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { sleep, type Logger } from '#core';
import type { Check, CheckResult } from '#domain';
import { attemptTimeoutCap, createProber, runnableOf, type Prober, type ScriptRunner } from '#probes';

/** One leased run, as POST /v1/agent/leases answers it. */
export interface Lease {
  checkId: string;
  accountId: string;
  window: number;
  resultId: string;
  location: string;
  leaseEndsAt: number;
  check: Check;
  variables: Record<string, string>;
  secretValues: string[];
  /** Script checks: the runtime the API resolved (the check's, its group's, its account's or the current one). */
  runtimeId?: string;
}

export interface AgentSettings {
  apiUrl: string;
  key: string;
  concurrency: number;
  allowPrivate: boolean;
  pollWaitMs: number;
  version: string;
  chromiumPath?: string;
  /** What BROWSER checks drive when installed (see createProber). */
  headlessShellPath?: string;
  /** How long SIGTERM waits for runs in progress before handing them back. */
  drainMs?: number;
}

export interface Agent {
  /** Resolves when the agent stops by itself: the API refused its key (revoked, or its location deleted). */
  stopped: Promise<{ reason: string }>;
  stop(): Promise<void>;
}

const TIMEOUT_MARGIN_MS = 5_000;
const RENEW_EVERY_MS = 15_000;
/** Results wait this long to travel together: one request per batch, not per run. */
const FLUSH_DELAY_MS = 250;

/**
 * The runner in agent mode: it leases due runs of its private location from the API over HTTP(S),
 * runs them with the same probes (and script sandbox) as the cluster's runners, and posts the
 * results back. It keeps nothing that must survive a restart: a run it loses is leased again by
 * the API once its lease ends, and the result id (from check, location and window) stays the same.
 */
export function startAgent(deps: {
  settings: AgentSettings;
  log: Logger;
  prober?: Prober;
  scripts?: ScriptRunner;
}): Agent {
  const { settings } = deps;
  const agentId = randomUUID();
  const log = deps.log.child({ component: 'agent', agentId });
  const prober =
    deps.prober ??
    createProber({
      chromiumPath: settings.chromiumPath,
      headlessShellPath: settings.headlessShellPath,
      scripts: deps.scripts,
      logger: log,
    });
  const running = new Map<string, { lease: Lease; task: Promise<void> }>();
  const polling = new AbortController();
  const abandon = new AbortController();
  // Every run in flight listens to abandon: as many listeners as JOB_CONCURRENCY.
  setMaxListeners(0, abandon.signal);
  let stopping = false;
  let wake: () => void = () => {};
  const pending: { checkId: string; window: number; result: CheckResult }[] = [];
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;
  let resolveStopped: (value: { reason: string }) => void = () => {};
  const stopped = new Promise<{ reason: string }>((resolve) => (resolveStopped = resolve));

  const call = async (path: string, body: unknown, signal?: AbortSignal) => {
    const response = await fetch(new URL(path, settings.apiUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${settings.key}`,
        'content-type': 'application/json',
        'x-vigil-agent-id': agentId,
        'x-vigil-agent-version': settings.version,
      },
      body: JSON.stringify(body),
      signal: signal ?? AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : null };
  };

  /** The key was refused: revoked, or its location deleted. The agent stops at once, running nothing more. */
  const refused = (status: number, body: unknown) => {
    if (stopping) return;
    const reason = `the API refused the agent key (${status}): ${(body as { message?: string } | null)?.message ?? ''}`;
    log.error({ status }, reason);
    stopping = true;
    polling.abort();
    abandon.abort();
    resolveStopped({ reason });
  };

  const writeAll = async () => {
    while (pending.length > 0 && !abandon.signal.aborted) {
      const batch = pending.splice(0, 200);
      try {
        const answer = await call('/v1/agent/results', { results: batch });
        if (answer.status === 401 || answer.status === 403) return refused(answer.status, answer.body);
        if (answer.status >= 400) log.warn({ status: answer.status, body: answer.body }, 'results refused');
      } catch (error) {
        // Kept for the next flush; if that never comes the lease ends and the run is repeated, same id.
        log.warn({ err: error, results: batch.length }, 'results not posted; retrying');
        pending.unshift(...batch);
        await sleep(1_000);
      }
    }
  };
  const flush = (): Promise<void> => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    flushing ??= writeAll().finally(() => {
      flushing = null;
      if (pending.length > 0 && !abandon.signal.aborted) flushTimer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
    });
    return flushing;
  };

  const run = async (lease: Lease) => {
    const definition = runnableOf(lease.check);
    if (!definition) return;
    const check = lease.check;
    const startedAt = new Date();
    const retry = 'retryStrategy' in check ? check.retryStrategy : undefined;
    const retries = retry && retry.type !== 'NONE' && retry.maxRetries > 0 ? retry : undefined;
    const attemptTimeoutMs = Math.min(check.maxResponseTime + TIMEOUT_MARGIN_MS, attemptTimeoutCap(definition));
    const context = {
      resultId: lease.resultId,
      accountId: lease.accountId,
      checkId: check.id,
      location: lease.location,
      startedAt,
      degradedResponseTime: check.degradedResponseTime,
      maxResponseTime: check.maxResponseTime,
      variables: lease.variables,
      secretValues: lease.secretValues,
      allowPrivate: settings.allowPrivate,
      timeoutMs: attemptTimeoutMs,
      signal: abandon.signal,
      ...(lease.runtimeId ? { runtimeId: lease.runtimeId } : {}),
    };
    const outcome = retries
      ? await prober.runWithRetries(definition, context, retries)
      : await prober.runProbe(definition, context);
    if (abandon.signal.aborted) return;
    pending.push({ checkId: lease.checkId, window: lease.window, result: outcome.result });
    if (!flushing) flushTimer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
  };

  const track = (lease: Lease) => {
    const id = `${lease.checkId}:${lease.window}`;
    const task = run(lease)
      .catch((error) => log.error({ err: error, checkId: lease.checkId }, 'run failed; its lease will repeat it'))
      .finally(() => {
        running.delete(id);
        wake();
      });
    running.set(id, { lease, task });
  };

  const refs = () => [...running.values()].map(({ lease }) => ({ checkId: lease.checkId, window: lease.window }));

  // Script runs outlast a lease: every lease in hand is renewed while it runs.
  const renewTimer = setInterval(() => {
    if (running.size === 0 || stopping) return;
    void call('/v1/agent/leases/renew', { runs: refs() })
      .then((answer) => {
        if (answer.status === 401 || answer.status === 403) refused(answer.status, answer.body);
      })
      .catch((error) => log.warn({ err: error }, 'lease renewal failed'));
  }, RENEW_EVERY_MS);
  renewTimer.unref();

  const loop = async () => {
    let backoffMs = 500;
    while (!stopping) {
      const free = settings.concurrency - running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      try {
        const answer = await call(
          '/v1/agent/leases',
          { max: free, waitMs: settings.pollWaitMs, inFlight: running.size },
          AbortSignal.any([polling.signal, AbortSignal.timeout(settings.pollWaitMs + 15_000)]),
        );
        if (answer.status === 401 || answer.status === 403) return refused(answer.status, answer.body);
        if (answer.status === 429) {
          const seconds = Number(answer.headers.get('retry-after') ?? '1');
          await sleep(Math.max(1, seconds) * 1000, polling.signal).catch(() => undefined);
          continue;
        }
        if (answer.status !== 200) throw new Error(`lease request answered ${answer.status}`);
        backoffMs = 500;
        const leases = (answer.body as { leases: Lease[] }).leases;
        if (stopping) {
          await call('/v1/agent/leases/release', {
            runs: leases.map((l) => ({ checkId: l.checkId, window: l.window })),
          });
          break;
        }
        for (const lease of leases) track(lease);
      } catch (error) {
        if (stopping) break;
        log.warn({ err: error }, 'lease request failed; retrying');
        await sleep(backoffMs, polling.signal).catch(() => undefined);
        backoffMs = Math.min(backoffMs * 2, 10_000);
      }
    }
  };

  const loopDone = loop();
  log.info({ api: settings.apiUrl, concurrency: settings.concurrency }, 'agent started');

  return {
    stopped,
    async stop() {
      stopping = true;
      polling.abort();
      wake();
      clearInterval(renewTimer);
      await loopDone;
      const drained = Promise.all([...running.values()].map((r) => r.task)).then(() => true);
      const timedOut = sleep(settings.drainMs ?? 10_000).then(() => false);
      if (!(await Promise.race([drained, timedOut])) && !abandon.signal.aborted) {
        const left = refs();
        log.warn({ runs: left.length }, 'runs handed back at shutdown');
        abandon.abort();
        await call('/v1/agent/leases/release', { runs: left }).catch(() => undefined);
      }
      await flush();
      await flush();
      await prober.close();
      resolveStopped({ reason: 'stopped' });
      log.info('agent stopped');
    },
  };
}
