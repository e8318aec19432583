import { z } from 'zod';

export const alertTypes = [
  'ALERT_FAILURE',
  'ALERT_RECOVERY',
  'ALERT_DEGRADED',
  'ALERT_DEGRADED_RECOVERY',
  'ALERT_SSL',
  'ALERT_NO_DATA',
  'ALERT_NO_DATA_RECOVERY',
] as const;
export type AlertType = (typeof alertTypes)[number];

/**
 * Alerts about a private location rather than a check: no agent polled it for the availability
 * window, and an agent polled again. CHECK_* carry the location (CHECK_TYPE PRIVATE_LOCATION) so a
 * template written for checks still says which one; LOCATION_* name it plainly.
 */
export const locationAlertTypes = ['ALERT_LOCATION_UNAVAILABLE', 'ALERT_LOCATION_RECOVERY'] as const;
export type LocationAlertType = (typeof locationAlertTypes)[number];

// Fields that do not apply to an alert (SSL fields on a failure, status code on a browser check)
// are null rather than absent, so every body carries the same keys and templates render them empty.
const optionalText = z.string().nullable().default(null);
const optionalNumber = z.number().nullable().default(null);

/** The spec's event variables, plus IS_REMINDER and REMINDER_SEQUENCE. */
export const alertEventVariablesSchema = z.object({
  CHECK_NAME: z.string(),
  CHECK_ID: z.string(),
  CHECK_TYPE: z.string(),
  ALERT_TITLE: z.string(),
  ALERT_TYPE: z.enum([...alertTypes, ...locationAlertTypes]),
  CHECK_RESULT_ID: optionalText,
  CHECK_ERROR_MESSAGE: optionalText,
  RESPONSE_TIME: optionalNumber,
  API_CHECK_RESPONSE_STATUS_CODE: z.number().int().nullable().default(null),
  API_CHECK_RESPONSE_STATUS_TEXT: optionalText,
  RUN_LOCATION: optionalText,
  RESULT_LINK: optionalText,
  SSL_DAYS_REMAINING: z.number().int().nullable().default(null),
  SSL_CHECK_DOMAIN: optionalText,
  STARTED_AT: optionalText,
  TAGS: z.array(z.string()).default([]),
  GROUP_NAME: optionalText,
  IS_REMINDER: z.boolean().default(false),
  REMINDER_SEQUENCE: z.number().int().min(0).default(0),
  // Only in ALERT_LOCATION_* alerts (absent from a check's, which stay as they were).
  LOCATION_ID: z.string().optional(),
  LOCATION_NAME: z.string().optional(),
  LOCATION_SLUG: z.string().optional(),
  /** ISO 8601: when an agent last polled the location. */
  LOCATION_LAST_SEEN: z.string().optional(),
});

/** As rendered: every key present. */
export type AlertEventVariables = z.output<typeof alertEventVariablesSchema>;
/** As produced by the alerter: optional fields may be left out. */
export type AlertEventVariablesInput = z.input<typeof alertEventVariablesSchema>;

export const EVENT_VARIABLE_NAMES: readonly string[] = Object.keys(alertEventVariablesSchema.shape);

/** Everything a render sees besides the event: the account's and the group's variables. */
export interface TemplateVariables {
  event: AlertEventVariables;
  /** The account's environment variables, key → value. Secrets may be left out or included: they never render. */
  account?: Readonly<Record<string, string>>;
  /** The group's variables when the check belongs to a group; they override the account's. */
  group?: Readonly<Record<string, string>>;
  /** Keys of the account's secret variables: they render as empty and the render warns when a template reads one. */
  secretKeys?: readonly string[];
}

/**
 * The one flat set a template reads: account variables, overridden by group variables,
 * overridden by event variables. A secret account variable is left out; a group variable of
 * the same name is not a secret and stays.
 */
export function mergeVariables(variables: TemplateVariables): Record<string, unknown> {
  const secrets = new Set(variables.secretKeys ?? []);
  const merged: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(variables.account ?? {})) if (!secrets.has(key)) merged[key] = value;
  Object.assign(merged, variables.group ?? {}, variables.event);
  return merged;
}

/** Merged sets by the variables they were merged from, with the parts they were made of. */
const mergedSets = new WeakMap<
  TemplateVariables,
  { from: TemplateVariables; values: Readonly<Record<string, unknown>> }
>();

/**
 * mergeVariables, made once per set of variables: one alert's variables render for each of
 * its channels (ten deliveries, ten merges of some thirty keys into a dictionary each, about a
 * twentieth of the dispatcher's allocation). The merged set is frozen, since renders share it,
 * and made again if a part of the variables (event, account, group, secret keys) was replaced;
 * the parts themselves are not changed once built, as the alert events they come from.
 */
export function mergedVariables(variables: TemplateVariables): Readonly<Record<string, unknown>> {
  const known = mergedSets.get(variables);
  if (
    known &&
    known.from.event === variables.event &&
    known.from.account === variables.account &&
    known.from.group === variables.group &&
    known.from.secretKeys === variables.secretKeys
  )
    return known.values;
  const values = Object.freeze(mergeVariables(variables));
  mergedSets.set(variables, { from: { ...variables }, values });
  return values;
}
