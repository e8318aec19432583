import type { LocationAlert } from '#alerting';
import type { PrivateLocationView, ReadModels } from '#readmodels';
import type { AlertEventVariables, TemplateVariables } from '#webhooks';

/**
 * The event variables of a private location's alert. CHECK_* carry the location (CHECK_TYPE
 * PRIVATE_LOCATION), so a template written for checks still names it; LOCATION_* say it plainly.
 */
export function locationEventVariables(
  alert: LocationAlert,
  view: PrivateLocationView,
  publicUrl: string,
): AlertEventVariables {
  const { location } = view;
  const unavailable = alert.alertType === 'ALERT_LOCATION_UNAVAILABLE';
  return {
    CHECK_NAME: location.name,
    CHECK_ID: location.id,
    CHECK_TYPE: 'PRIVATE_LOCATION',
    ALERT_TITLE: unavailable
      ? `Private location "${location.name}" is unavailable`
      : `Private location "${location.name}" is available again`,
    ALERT_TYPE: alert.alertType,
    CHECK_RESULT_ID: null,
    CHECK_ERROR_MESSAGE: unavailable ? `no agent has polled since ${alert.lastSeenAt}` : null,
    RESPONSE_TIME: null,
    API_CHECK_RESPONSE_STATUS_CODE: null,
    API_CHECK_RESPONSE_STATUS_TEXT: null,
    RUN_LOCATION: location.slugName,
    RESULT_LINK: `${publicUrl.replace(/\/$/, '')}/v1/private-locations/${location.id}`,
    SSL_DAYS_REMAINING: null,
    SSL_CHECK_DOMAIN: null,
    STARTED_AT: alert.startedAt,
    TAGS: [],
    GROUP_NAME: null,
    IS_REMINDER: false,
    REMINDER_SEQUENCE: 0,
    LOCATION_ID: location.id,
    LOCATION_NAME: location.name,
    LOCATION_SLUG: location.slugName,
    LOCATION_LAST_SEEN: alert.lastSeenAt,
  };
}

/** Everything a template may read for a location's alert: the event and the account's non-secret variables. */
export async function locationTemplateVariables(
  readModels: ReadModels,
  alert: LocationAlert,
  view: PrivateLocationView,
  publicUrl: string,
): Promise<TemplateVariables> {
  const { items } = await readModels.variables(alert.accountId);
  const account: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const variable of items) {
    if (variable.secret) secretKeys.push(variable.key);
    else account[variable.key] = variable.value;
  }
  return { event: locationEventVariables(alert, view, publicUrl), account, secretKeys };
}
