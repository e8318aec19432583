import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import {
  buildAlertEvent,
  evolveAlertState,
  initialAlertState,
  parseAlertState,
  resolveAlertSettings,
  serializeAlertState,
  type AlertEvent,
} from '#alerting';
import type { ConsumedMessage, Consumer } from '#bus';
import { InternalError, type Lifecycle, type Logger } from '#core';
import { covers, parseCheckResult, type CheckResult, type MaintenanceWindow } from '#domain';
import type { Platform } from '#platform';
import { MaintenanceWindowReads, ReadModels } from '#readmodels';
import type { WriteOp } from '#statestore';

export const ALERTER_GROUP = 'vigil-alerter';
const stateKey = (checkId: string) => `alert:state:${checkId}`;
const SUMMARY_INTERVAL_MS = 60_000;

/**
 * Runs the per-check alert state machine over check results, in its own consumer group. Alert
 * events go out before the new states are saved: after a crash the same results are replayed,
 * the machine decides the same alerts with the same ids, and the dispatcher drops the repeats.
 */
export async function startAlerter(deps: {
  platform: Platform;
  log: Logger;
  lifecycle: Lifecycle;
  metrics?: Registry;
}): Promise<Consumer> {
  const { bus, stateStore } = deps.platform;
  if (!bus) throw new InternalError('the alerter needs the message bus');
  const log = deps.log.child({ component: 'alerter' });
  const readModels = new ReadModels(stateStore);
  const maintenance = new MaintenanceWindowReads(stateStore);
  const alertsCounter = deps.metrics
    ? new Counter({
        name: 'vigil_alerts_total',
        help: 'Alerts decided, by type',
        labelNames: ['type'],
        registers: [deps.metrics],
      })
    : undefined;
  // One line per batch floods the log under load: batches log at debug, and a summary at info.
  const summary = new Map<string, number>();
  const summaryTimer = setInterval(() => {
    if (summary.size === 0) return;
    const byType = Object.fromEntries(summary);
    const count = [...summary.values()].reduce((sum, n) => sum + n, 0);
    summary.clear();
    log.info({ count, byType, periodMs: SUMMARY_INTERVAL_MS }, 'alerts decided in the last period');
  }, SUMMARY_INTERVAL_MS);
  summaryTimer.unref();
  deps.lifecycle.add('alerter-summary', () => clearInterval(summaryTimer));

  const handle = async (batch: ConsumedMessage[]): Promise<void> => {
    const byCheck = new Map<string, CheckResult[]>();
    for (const message of batch) {
      let raw: unknown;
      try {
        raw = JSON.parse(message.value);
      } catch {
        continue; // not JSON: the ingestor sends it to the DLQ with the reason
      }
      const parsed = parseCheckResult(raw);
      if (!parsed.ok) continue;
      const list = byCheck.get(parsed.value.checkId) ?? [];
      list.push(parsed.value);
      byCheck.set(parsed.value.checkId, list);
    }
    if (byCheck.size === 0) return;
    const checkIds = [...byCheck.keys()];
    const [checks, rawStates] = await Promise.all([
      readModels.checksByIds(checkIds),
      stateStore.getMany(checkIds.map(stateKey)),
    ]);
    const checkById = new Map(checks.map((view) => [view.check.id, view]));
    const accountIds = [...new Set(checks.map((view) => view.accountId))];
    const [accountViews, windowLists] = await Promise.all([
      readModels.accounts(accountIds),
      Promise.all(accountIds.map((accountId) => maintenance.windows(accountId))),
    ]);
    const accounts = new Map(accountViews.map((a) => [a.accountId, a]));
    const windowsOf = new Map<string, MaintenanceWindow[]>(accountIds.map((id, i) => [id, windowLists[i]!]));

    const events: AlertEvent[] = [];
    const writes: WriteOp[] = [];
    checkIds.forEach((checkId, index) => {
      const view = checkById.get(checkId);
      const account = view ? accounts.get(view.accountId) : undefined;
      if (!view || !account) return;
      const raw = rawStates[index];
      let state = raw ? parseAlertState(raw) : initialAlertState();
      const settings = resolveAlertSettings(account.alertSettings, view.check.alertSettings);
      // Windows are read as they are now, so an edit made while one is in force applies to what follows.
      const covering = (windowsOf.get(view.accountId) ?? []).filter((window) => covers(window, view.check));
      const results = byCheck
        .get(checkId)!
        .filter((r) => r.accountId === view.accountId)
        .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
      for (const result of results) {
        const evolution = evolveAlertState(state, {
          result,
          settings,
          check: {
            activated: view.check.activated,
            muted: view.check.muted,
            maintenance: covering,
            noDataAlerts: view.check.noDataAlerts,
          },
        });
        state = evolution.state;
        for (const decision of evolution.alerts) events.push(buildAlertEvent(decision, result));
      }
      writes.push({ op: 'set', key: stateKey(checkId), value: serializeAlertState(state) });
    });
    if (events.length > 0) {
      await bus.publish(
        deps.platform.topics.alertEvents,
        events.map((event) => ({ key: event.checkId, value: JSON.stringify(event) })),
      );
      for (const event of events) alertsCounter?.inc({ type: event.alertType });
      for (const event of events) summary.set(event.alertType, (summary.get(event.alertType) ?? 0) + 1);
      log.debug({ count: events.length, types: [...new Set(events.map((e) => e.alertType))] }, 'alerts decided');
    }
    if (writes.length > 0) await stateStore.write(writes);
  };

  const consumer = await bus.consume({
    groupId: deps.platform.group(ALERTER_GROUP),
    topics: [deps.platform.topics.checkResults],
    fromBeginning: true,
    maxBatchSize: 1000,
    retry: { initialMs: 500, maxMs: 30_000 },
    handler: (batch) => handle(batch),
    onError: (error, attempt) => log.warn({ err: error, attempt }, 'alert batch failed; retrying'),
  });
  deps.lifecycle.add('alerter', () => consumer.stop());
  return consumer;
}
