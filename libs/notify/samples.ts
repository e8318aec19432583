import { randomUUID } from 'node:crypto';
import type { AlertEvent } from '#alerting';
import type { AlertChannelView, ReadModels } from '#readmodels';
import type { CheckContext } from './variables.ts';
import { checkContext } from './variables.ts';

/** A check to render samples against when the channel follows none yet. */
export function syntheticContext(): CheckContext {
  return {
    check: {
      id: '00000000-0000-4000-8000-000000000000',
      name: 'Vigil test check',
      checkType: 'API',
      activated: true,
      muted: false,
      frequency: 10,
      tags: ['test'],
      locations: ['eu-west-1'],
      groupId: null,
      degradedResponseTime: 5000,
      maxResponseTime: 20000,
      sslCheckDomain: 'example.com',
      runtimeId: null,
      alertSettings: null,
      noDataAlerts: false,
    },
    group: null,
  };
}

/** A realistic sample alert of the given type for a check. */
export function sampleAlert(
  accountId: string,
  context: CheckContext,
  alertType: AlertEvent['alertType'] = 'ALERT_FAILURE',
): AlertEvent {
  const failing = alertType === 'ALERT_FAILURE';
  return {
    alertId: randomUUID(),
    accountId,
    checkId: context.check.id,
    checkType: context.check.checkType,
    alertType,
    isReminder: false,
    reminderSequence: 0,
    resultId: randomUUID(),
    startedAt: new Date().toISOString(),
    runLocation: context.check.locations[0] ?? 'eu-west-1',
    responseTime: failing ? 20000 : 245,
    errorMessage: failing ? 'Request timed out after 20000 ms' : null,
    statusCode: failing ? 503 : 200,
    statusText: failing ? 'Service Unavailable' : 'OK',
    ssl: alertType === 'ALERT_SSL' ? { daysRemaining: 7, domain: context.check.sslCheckDomain ?? 'example.com' } : null,
    occurredAt: new Date().toISOString(),
  };
}

/** The check a channel's sample renders against: its first subscribed check, else a synthetic one. */
export async function sampleContext(
  readModels: ReadModels,
  accountId: string,
  channel: AlertChannelView | null,
  checkId?: string,
): Promise<CheckContext> {
  const candidates = checkId
    ? [checkId]
    : (channel?.subscriptions ?? []).filter((s) => s.activated && s.checkId).map((s) => s.checkId!);
  for (const id of candidates) {
    const context = await checkContext(readModels, id);
    if (context && (await readModels.check(id))?.accountId === accountId) return context;
  }
  return syntheticContext();
}
