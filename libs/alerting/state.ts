import { z } from 'zod';

export const alertStatuses = ['passing', 'degraded', 'failing'] as const;
export type AlertStatus = (typeof alertStatuses)[number];

export const ALERT_STATE_VERSION = 1;
/**
 * How many result ids sharing the newest startedAt are remembered. Only those are needed to
 * spot a duplicate: an older duplicate is already dropped for being older. Results of one
 * check starting in the same millisecond beyond this bound are not a real workload.
 */
export const MAX_TIED_RESULT_IDS = 64;

const instant = z.iso.datetime({ offset: true });
const streakSchema = z.object({ count: z.number().int().min(1), since: instant }).strict();

export const checkAlertStateSchema = z
  .object({
    version: z.literal(ALERT_STATE_VERSION),
    status: z.enum(alertStatuses),
    failing: streakSchema.nullable(),
    troubled: streakSchema.nullable(),
    announced: z.object({ failure: z.boolean(), degraded: z.boolean() }).strict(),
    reminders: z
      .object({ sent: z.number().int().min(0), lastAt: instant })
      .strict()
      .nullable(),
    sslDay: z.iso.date().nullable(),
    /** ALERT_NO_DATA was sent and no result has come since (states saved before it read false). */
    noData: z.boolean().default(false),
    last: z
      .object({ startedAt: instant, ids: z.array(z.string().min(1)).min(1).max(MAX_TIED_RESULT_IDS) })
      .strict()
      .nullable(),
  })
  .strict();

/** A run of consecutive results: how many, and the startedAt of the first (for TIME_BASED). */
export type Streak = z.output<typeof streakSchema>;

/**
 * What the alerter remembers about one check between results.
 *
 * `status` is the ESCALATED state, the one the table speaks of: a check is `failing`
 * once its failure threshold was reached (or it was already announced as degraded and then
 * failed), not as soon as one run fails. The raw runs are counted in the streaks:
 * - `failing`: consecutive failing results;
 * - `troubled`: consecutive results that are not passing (degraded or failing), which is what
 *   the degraded threshold counts, so a check flapping between degraded and failing still
 *   escalates.
 *
 * `announced` records which alerts of the current incident were really sent (not suppressed
 * by mute), which decides the recovery type. `reminders` is null unless the ALERT_FAILURE of
 * the current failing episode was sent: there is nothing to remind of otherwise.
 */
export type CheckAlertState = z.output<typeof checkAlertStateSchema>;

export function initialAlertState(): CheckAlertState {
  return {
    version: ALERT_STATE_VERSION,
    status: 'passing',
    failing: null,
    troubled: null,
    announced: { failure: false, degraded: false },
    reminders: null,
    sslDay: null,
    noData: false,
    last: null,
  };
}
