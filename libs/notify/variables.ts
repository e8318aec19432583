import type { AlertEvent } from '#alerting';
import { visibleValue, type MaskableVariable, type Viewer } from '#domain';
import type { CheckGroupView, CheckView, ReadModels } from '#readmodels';
import type { AlertEventVariables, TemplateVariables } from '#webhooks';

const titles: Record<AlertEvent['alertType'], (name: string, event: AlertEvent) => string> = {
  ALERT_FAILURE: (name, event) =>
    event.isReminder
      ? `Reminder ${event.reminderSequence}: check "${name}" is still failing`
      : `Check "${name}" is failing`,
  ALERT_RECOVERY: (name) => `Check "${name}" has recovered`,
  ALERT_DEGRADED: (name) => `Check "${name}" is degraded`,
  ALERT_DEGRADED_RECOVERY: (name) => `Check "${name}" is no longer degraded`,
  ALERT_NO_DATA: (name) => `Check "${name}" has sent no results for two of its frequency windows`,
  ALERT_NO_DATA_RECOVERY: (name) => `Check "${name}" is sending results again`,
  ALERT_SSL: (name, event) =>
    `SSL certificate for ${event.ssl?.domain ?? 'the domain'} of check "${name}" expires in ${event.ssl?.daysRemaining ?? '?'} days`,
};

export interface CheckContext {
  check: CheckView['check'];
  group: CheckGroupView['group'] | null;
}

/** The spec's event variables for one alert. */
export function eventVariables(event: AlertEvent, context: CheckContext, publicUrl: string): AlertEventVariables {
  const { check, group } = context;
  const isApi = check.checkType === 'API';
  return {
    CHECK_NAME: check.name,
    CHECK_ID: check.id,
    CHECK_TYPE: check.checkType,
    ALERT_TITLE: titles[event.alertType](check.name, event),
    ALERT_TYPE: event.alertType,
    CHECK_RESULT_ID: event.resultId,
    CHECK_ERROR_MESSAGE: event.errorMessage,
    RESPONSE_TIME: event.responseTime,
    API_CHECK_RESPONSE_STATUS_CODE: isApi ? event.statusCode : null,
    API_CHECK_RESPONSE_STATUS_TEXT: isApi ? event.statusText : null,
    RUN_LOCATION: event.runLocation,
    // The result's JSON view, read with the receiver's own API key (GET /v1/check-results/{checkId}/{resultId}).
    RESULT_LINK: `${publicUrl.replace(/\/$/, '')}/v1/check-results/${check.id}/${event.resultId}`,
    SSL_DAYS_REMAINING: event.ssl?.daysRemaining ?? null,
    SSL_CHECK_DOMAIN: event.ssl?.domain ?? check.sslCheckDomain ?? null,
    STARTED_AT: event.startedAt,
    TAGS: check.tags,
    GROUP_NAME: group?.name ?? null,
    IS_REMINDER: event.isReminder,
    REMINDER_SEQUENCE: event.reminderSequence,
  };
}

/** An account's variables as templates see them: non-secret values by key, and the secret keys. */
export interface AccountTemplateVariables {
  account: Readonly<Record<string, string>>;
  secretKeys: readonly string[];
}

const shownTo = (viewer: Viewer | undefined) => (variable: MaskableVariable) =>
  viewer ? visibleValue(variable, viewer) : variable.value;

/**
 * The account's part of what templates read, in one read of its variables. The dispatcher reads
 * it once per account for a batch of alerts and shares it between them (it is never changed).
 */
export async function accountTemplateVariables(
  readModels: ReadModels,
  accountId: string,
  viewer?: Viewer,
): Promise<AccountTemplateVariables> {
  const { items } = await readModels.variables(accountId);
  const shown = shownTo(viewer);
  const account: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const variable of items) {
    if (variable.secret) secretKeys.push(variable.key);
    else account[variable.key] = shown(variable);
  }
  return { account, secretKeys };
}

/** Everything a template may read for an alert, given its account's part (see templateVariablesFor). */
export function templateVariablesFrom(
  shared: AccountTemplateVariables,
  event: AlertEvent,
  context: CheckContext,
  publicUrl: string,
  viewer?: Viewer,
): TemplateVariables {
  const shown = shownTo(viewer);
  const group = Object.fromEntries((context.group?.environmentVariables ?? []).map((v) => [v.key, shown(v)]));
  return {
    event: eventVariables(event, context, publicUrl),
    account: shared.account,
    group,
    secretKeys: shared.secretKeys,
  };
}

/**
 * Everything a template may read for an alert on this check: the event, the account's
 * non-secret variables and the group's variables (which override the account's).
 *
 * Real deliveries pass no viewer and render locked values as they are (locked, unlike secret,
 * values are meant for templates). A preview or a test send passes the caller as the viewer: it
 * renders what the caller may read, with the one masking rule of `GET /v1/variables/{key}`.
 */
export async function templateVariablesFor(
  readModels: ReadModels,
  event: AlertEvent,
  context: CheckContext,
  publicUrl: string,
  viewer?: Viewer,
): Promise<TemplateVariables> {
  const shared = await accountTemplateVariables(readModels, event.accountId, viewer);
  return templateVariablesFrom(shared, event, context, publicUrl, viewer);
}

/** Loads the check and its group; null when the check is gone. */
export async function checkContext(readModels: ReadModels, checkId: string): Promise<CheckContext | null> {
  const view = await readModels.check(checkId);
  if (!view) return null;
  const group = view.check.groupId ? ((await readModels.checkGroup(view.check.groupId))?.group ?? null) : null;
  return { check: view.check, group };
}
