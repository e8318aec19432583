/**
 * What one webhook delivery costs the dispatcher beyond the POST itself, stage by stage, each
 * measured alone in a tight loop (CPU µs of this process per delivery, which a busy machine
 * distorts less than wall time). The durable records go to a state store of their own (a temp SQLite file, or Redis
 * under a prefix of its own), so the measurement never touches the run's queue or log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertEvent } from '#alerting';
import { createLogger, type SecretBox } from '#core';
import {
  deliveryIdFor,
  DeliveryStore,
  sampleAlert,
  templateVariablesFor,
  type Attempt,
  type CheckContext,
  type Delivery,
} from '#notify';
import type { WebhookChannel } from '#domain';
import type { AlertChannelView, ReadModels } from '#readmodels';
import { createRedisStateStore, createSqliteStateStore, type SqliteStateStore, type StateStore } from '#statestore';
import { prepareRequest, renderTemplates } from '#webhooks';
import { round } from '../support/stats.ts';

export interface CostRow {
  stage: string;
  usPerDelivery: number;
  note: string;
  /** Paid once per channel, not per delivery: left out of the per-delivery sum. */
  once?: boolean;
}

export interface CostInput {
  readModels: ReadModels;
  box: SecretBox;
  accountId: string;
  context: CheckContext;
  view: AlertChannelView;
  channels: number;
  redis?: { url: string; prefix: string };
  /** Deliveries per measured stage. */
  n?: number;
}

/** CPU µs (this process, user + system) since `since`: robust to other processes on a busy machine. */
function cpuSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

/** CPU µs per item of `work`, run `n` times (after a short warm-up). */
async function perItem(n: number, work: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < Math.min(50, n); i++) await work(i);
  const started = process.cpuUsage();
  for (let i = 0; i < n; i++) await work(i);
  return cpuSince(started) / n;
}

function delivery(alert: AlertEvent, channelId: string, now: number): Delivery {
  return {
    id: deliveryIdFor(alert, channelId),
    channelId,
    accountId: alert.accountId,
    checkId: alert.checkId,
    alertType: alert.alertType,
    alert,
    test: false,
    attempts: 0,
    status: 'pending',
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
    lastError: null,
  };
}

export async function measureCosts(input: CostInput): Promise<CostRow[]> {
  const n = input.n ?? 2000;
  const { readModels, context, view } = input;
  const alerts = Array.from({ length: n }, () => sampleAlert(input.accountId, context, 'ALERT_FAILURE'));
  const variables = await templateVariablesFor(readModels, alerts[0]!, context, 'http://localhost:3000');
  // The bench's channel is a webhook.
  const config = (view.channel as WebhookChannel).config;
  const now = new Date();
  const rendered = renderTemplates(config, variables, { now, region: 'local' });
  const secret = config.webhookSecretEncrypted ? input.box.decrypt(config.webhookSecretEncrypted) : null;

  const rows: CostRow[] = [];
  const lookups = await perItem(Math.min(n, 500), (i) =>
    templateVariablesFor(readModels, alerts[i]!, context, 'http://localhost:3000'),
  );
  rows.push({
    stage: 'look-ups (account variables, per alert)',
    usPerDelivery: lookups / input.channels,
    note: `once per alert, shared by its ${input.channels} deliveries`,
  });
  rows.push({
    stage: 'render (url, headers, body)',
    usPerDelivery: await perItem(n, () => renderTemplates(config, variables, { now, region: 'local' })),
    note: 'main thread, within the template budget',
  });
  rows.push({
    stage: 'decrypt the channel secret',
    usPerDelivery: config.webhookSecretEncrypted
      ? await perItem(n, () => input.box.decrypt(config.webhookSecretEncrypted!))
      : 0,
    note: 'AES-256-GCM; the dispatcher keeps it per channel, so it is paid once',
    once: true,
  });
  rows.push({
    stage: 'sign and build headers',
    usPerDelivery: await perItem(n, (i) =>
      prepareRequest(
        { url: rendered.url, method: rendered.method, headers: rendered.headers, body: rendered.body },
        { timeoutMs: 1000, allowPrivate: true, userAgent: 'Vigil/bench', deliveryId: `d-${i}`, secret, now },
      ),
    ),
    note: 'HMAC-SHA256 (and Standard Webhooks with whsec_)',
  });

  const dir = input.redis ? undefined : mkdtempSync(join(tmpdir(), 'vigil-bench-costs-'));
  const store: StateStore = input.redis
    ? createRedisStateStore({
        url: input.redis.url,
        keyPrefix: `${input.redis.prefix}costs:`,
        log: createLogger({ level: 'silent' }),
      })
    : createSqliteStateStore({ path: join(dir!, 'state.sqlite') });
  try {
    // The SQLite store's write thread starts on its first write (loading its modules takes a
    // second of CPU once per process): start it before measuring, as a running dispatcher has.
    await (store as SqliteStateStore).writeOffThread?.([{ op: 'set', key: 'bench:warm', value: '1' }]);
    const deliveries = new DeliveryStore(store);
    const batch = 500;
    const records = alerts.map((alert) => delivery(alert, view.channel.id, Date.now()));
    const started = process.cpuUsage();
    for (let i = 0; i < records.length; i += batch) await deliveries.unseen(records.slice(i, i + batch));
    rows.push({
      stage: 'replay check (is it recorded already?)',
      usPerDelivery: cpuSince(started) / records.length,
      note: `one read per ${batch}`,
    });
    const recordStarted = process.cpuUsage();
    for (let i = 0; i < records.length; i += batch) {
      await Promise.all(
        records.slice(i, i + batch).map((record) => {
          const attempt: Attempt = {
            deliveryId: record.id,
            channelId: record.channelId,
            checkId: record.checkId,
            alertType: record.alertType,
            attempt: 1,
            at: now.toISOString(),
            durationMs: 1,
            outcome: 'delivered',
            statusCode: 200,
            error: null,
            responseBody: 'ok',
            test: false,
            nextAttemptAt: null,
          };
          const next = { ...record, attempts: 1, status: 'delivered' as const, nextAttemptAt: null };
          return deliveries.recordAttempt(next, attempt, Date.now(), false);
        }),
      );
    }
    rows.push({
      stage: 'durable record (delivery, attempt, log)',
      usPerDelivery: cpuSince(recordStarted) / records.length,
      note: `group commit, ${batch} in flight; on SQLite, CPU of the write thread included`,
    });
    if (input.redis) await store.deletePrefix('');
  } finally {
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return rows.map((row) => ({ ...row, usPerDelivery: round(row.usPerDelivery, 1) }));
}
