import { randomBytes } from 'node:crypto';
import { makeResults, randomHex8, type Shape } from '../support/results.ts';
import { sleep } from '../support/stats.ts';
import { createAccount, createChecks, type Client } from '../support/vigil.ts';
import type { Deployment } from './deployment.ts';

/** Counts by operation and status class; network errors count as `error`. */
export type OpCounts = Record<string, Record<string, number>>;

export interface Setup {
  accountId: string;
  owner: Client;
  ingestChecks: string[];
  /** Ingested checks with alert channels subscribed: their failures and recoveries become webhooks. */
  alertingChecks: string[];
  channelIds: string[];
  runnerChecks: string[];
  shape: Shape;
}

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;

async function must<T>(what: string, call: Promise<{ status: number; body: T }>, status: number): Promise<T> {
  const answer = await call;
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * One account: checks that receive ingested results (never run by the runner: their location is
 * not its own), two webhook channels on a share of them, and one-minute API checks the runner runs
 * against the receiver's /target.
 */
export async function setUp(
  d: Deployment,
  o: { checks: number; alerting: number; runnerChecks: number; rate: number },
): Promise<Setup> {
  const account = await createAccount(d.apiUrl, d.adminKey);
  const owner = account.owner;
  const ingestChecks = await createChecks(owner, o.checks, ['eu-west-1']);
  const alertingChecks = ingestChecks.slice(0, o.alerting);
  const channelIds: string[] = [];
  for (const name of ['a', 'b']) {
    const channel = await must(
      'alert channel',
      owner.request<{ id: string }>('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        sendDegraded: true,
        config: { name: `soak ${name}`, url: `${d.receiverUrl}/hook/${name}`, webhookSecret: secret() },
      }),
      201,
    );
    for (const checkId of alertingChecks)
      await must(
        'subscription',
        owner.request('PUT', `/v1/alert-channels/${channel.id}/subscriptions`, { checkId, activated: true }),
        200,
      );
    channelIds.push(channel.id);
  }
  const runnerChecks: string[] = [];
  for (let i = 0; i < o.runnerChecks; i++) {
    const check = await must(
      'runner check',
      owner.request<{ id: string }>('POST', '/v1/checks', {
        name: `soak runner ${i}`,
        checkType: 'API',
        frequency: 1,
        locations: [d.runnerLocation],
        request: {
          method: 'GET',
          url: `${d.receiverUrl}/target/${i}`,
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
        },
      }),
      201,
    );
    runnerChecks.push(check.id);
  }
  // Result i is started at its own slot on the steady schedule, so per-check order is time order.
  const t0 = Date.now();
  const shape: Shape = {
    accountId: account.accountId,
    checkIds: ingestChecks,
    idPrefix: randomHex8(),
    startedMs: (i) => t0 + Math.floor((i * 1000) / o.rate),
    seed: Number.parseInt(randomHex8(), 16),
  };
  return { accountId: account.accountId, owner, ingestChecks, alertingChecks, channelIds, runnerChecks, shape };
}

/** A 5xx answer or a failed connection, with when it happened (ms since the epoch). */
export interface Incident {
  at: number;
  op: string;
  status: number | 'error';
  message: string;
}

/**
 * Every 5xx and failed connection, so each can be set beside what else happened on the shared
 * servers at that time (another suite stopping Redis, say).
 */
export const incidents: Incident[] = [];

function count(counts: OpCounts, op: string, status: number | 'error', message = '') {
  const key = status === 'error' ? 'error' : `${Math.floor(status / 100)}xx`;
  if (status === 'error' || status >= 500)
    incidents.push({ at: Date.now(), op, status, message: message.slice(0, 200) });
  const row = (counts[op] ??= {});
  row[key] = (row[key] ?? 0) + 1;
}

export interface IngestState {
  sent: number;
  acknowledged: number;
  /** Result indexes of batches that got no 202 with every result accepted. */
  unacknowledged: Array<[from: number, count: number]>;
  rejected: number;
  latenciesMs: number[];
  counts: OpCounts;
}

/**
 * Results through POST /v1/check-results at `rate` per second, in a batch every `tickMs`, on a
 * fixed schedule (a slow answer does not slow the schedule; at most 8 batches are in flight).
 */
export async function ingest(
  d: Deployment,
  s: Setup,
  o: { rate: number; tickMs: number },
  until: () => boolean,
  state: IngestState,
): Promise<void> {
  const perTick = Math.max(1, Math.round((o.rate * o.tickMs) / 1000));
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let tick = 0; !until(); tick++) {
    const wait = started + tick * o.tickMs - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= 8) await Promise.race(inFlight);
    const from = state.sent;
    state.sent += perTick;
    const body = JSON.stringify(makeResults(s.shape, from, perTick));
    const sentAt = performance.now();
    const request = fetch(`${d.apiUrl}/v1/check-results`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.ingestKey}`, 'content-type': 'application/json' },
      body,
    })
      .then(async (response) => {
        const answer = (await response.json()) as { accepted?: number; rejected?: unknown[]; message?: string };
        count(state.counts, 'POST /v1/check-results', response.status, answer.message);
        state.latenciesMs.push(performance.now() - sentAt);
        state.rejected += answer.rejected?.length ?? 0;
        if (response.status === 202 && answer.accepted === perTick) state.acknowledged += perTick;
        else state.unacknowledged.push([from, perTick]);
      })
      .catch((error: unknown) => {
        count(state.counts, 'POST /v1/check-results', 'error', String(error));
        state.unacknowledged.push([from, perTick]);
      })
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  }
  await Promise.all(inFlight);
}

/**
 * Mixed control-plane and analytics traffic at about `rate` operations per second: variables,
 * checks and alert channels created, read, listed, replaced and deleted (each kept to a small
 * pool, so stored state stays flat and any growth in a process is its own), and analytics reads.
 */
export async function controlPlane(
  s: Setup,
  o: { rate: number; receiverUrl: string },
  until: () => boolean,
  counts: OpCounts,
  latenciesMs: number[],
): Promise<void> {
  const variables: string[] = [];
  const checks: string[] = [];
  const channels: string[] = [];
  let serial = 0;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  const call = async (op: string, method: string, path: string, body?: unknown) => {
    const started = performance.now();
    try {
      const answer = await s.owner.request<{ id?: string; message?: string }>(method, path, body);
      count(counts, op, answer.status, answer.body?.message);
      latenciesMs.push(performance.now() - started);
      return answer;
    } catch (error) {
      count(counts, op, 'error', String(error));
      return null;
    }
  };
  const ops: Array<() => Promise<unknown>> = [
    async () => {
      const key = `SOAK_${serial++}`;
      const created = await call('POST /v1/variables', 'POST', '/v1/variables', { key, value: `v-${serial}` });
      if (created?.status === 201) variables.push(key);
      if (variables.length > 30)
        await call('DELETE /v1/variables/{key}', 'DELETE', `/v1/variables/${variables.shift()}`);
    },
    async () => {
      const key = pick(variables);
      if (key) await call('PUT /v1/variables/{key}', 'PUT', `/v1/variables/${key}`, { value: `w-${serial++}` });
    },
    async () => {
      const key = pick(variables);
      if (key) await call('GET /v1/variables/{key}', 'GET', `/v1/variables/${key}`);
    },
    () => call('GET /v1/variables', 'GET', '/v1/variables?limit=100'),
    async () => {
      const created = await call('POST /v1/checks', 'POST', '/v1/checks', {
        name: `churn ${serial++}`,
        checkType: 'API',
        locations: ['eu-west-1'],
      });
      if (created?.status === 201 && created.body.id) checks.push(created.body.id);
      if (checks.length > 20) await call('DELETE /v1/checks/{id}', 'DELETE', `/v1/checks/${checks.shift()}`);
    },
    async () => {
      const id = pick(checks);
      if (id)
        await call('PUT /v1/checks/{id}', 'PUT', `/v1/checks/${id}`, {
          name: `churn renamed ${serial++}`,
          checkType: 'API',
          locations: ['eu-west-1'],
        });
    },
    async () => {
      const id = pick(checks);
      if (id) await call('GET /v1/checks/{id}', 'GET', `/v1/checks/${id}`);
    },
    () => call('GET /v1/checks', 'GET', '/v1/checks?limit=100'),
    async () => {
      const created = await call('POST /v1/alert-channels', 'POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: `churn ${serial++}`, url: `${o.receiverUrl}/hook/churn`, webhookSecret: secret() },
      });
      if (created?.status === 201 && created.body.id) channels.push(created.body.id);
      if (channels.length > 10)
        await call('DELETE /v1/alert-channels/{id}', 'DELETE', `/v1/alert-channels/${channels.shift()}`);
    },
    async () => {
      const id = pick(channels);
      if (id) await call('GET /v1/alert-channels/{id}', 'GET', `/v1/alert-channels/${id}`);
    },
    () => call('GET /v1/alert-channels', 'GET', '/v1/alert-channels?limit=100'),
    () =>
      call(
        'GET /v1/analytics/api-checks/{id} (aggregated)',
        'GET',
        `/v1/analytics/api-checks/${pick(s.ingestChecks)}?quickRange=last24Hours&aggregationInterval=60&metrics=responseTime_p95`,
      ),
    () =>
      call(
        'GET /v1/analytics/api-checks/{id} (raw)',
        'GET',
        `/v1/analytics/api-checks/${pick(s.ingestChecks)}?metrics=responseTime&limit=50`,
      ),
    () => call('GET /v1/check-results/{checkId}', 'GET', `/v1/check-results/${pick(s.ingestChecks)}?limit=20`),
    () => call('GET /v1/check-statuses', 'GET', '/v1/check-statuses?limit=100'),
    () => call('GET /v1/accounts/me', 'GET', '/v1/accounts/me'),
  ];
  // Four workers on a shared schedule: a slow write (read-your-writes wait) does not stop reads.
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (!until()) {
      const slot = next++;
      const wait = started + (slot * 1000) / o.rate - performance.now();
      if (wait > 0) await sleep(wait);
      if (until()) return;
      await ops[slot % ops.length]!();
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}
