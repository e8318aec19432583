import { z } from 'zod';
import { CliError } from '../errors.ts';
import { toUtc } from '../window-times.ts';
import { logicalIdSchema, markers } from '#project-markers';

/**
 * Maintenance windows in the project file: the API's fields, with `checks: [logicalId]` instead of
 * `checkIds`. A window's tags choose the checks it covers, so deploy cannot mark it with tags as
 * it marks checks: like a channel, its name carries the marker (`Deploys [vigil:shop/deploys]`).
 */
type Plain = Record<string, unknown>;

const FIELDS = [
  'logicalId',
  'name',
  'tags',
  'checks',
  'startsAt',
  'endsAt',
  'repeatUnit',
  'repeatInterval',
  'repeatEndsAt',
  'pauseRuns',
];
const messages: Record<string, string> = {
  id: 'is chosen by the server; resources are matched by logicalId',
  checkIds: 'use checks: [<logicalId of a check in this file>]',
};

/** Any ISO 8601 time with an offset (or a Date from a .mjs file), compared and sent in UTC as the API answers it. */
const timeSchema = z.union([z.string(), z.date()]).transform((value, ctx) => {
  if (value instanceof Date) {
    if (!Number.isNaN(value.getTime())) return value.toISOString();
    ctx.addIssue({ code: 'custom', message: 'is an invalid Date' });
    return z.NEVER;
  }
  const parsed = toUtc(value);
  if ('utc' in parsed) return parsed.utc;
  ctx.addIssue({ code: 'custom', message: parsed.error });
  return z.NEVER;
});

export const windowSchema = z
  .looseObject({
    logicalId: logicalIdSchema,
    name: z.string().trim().min(1),
    tags: z.array(z.string()).optional(),
    checks: z.array(logicalIdSchema).optional(),
    startsAt: timeSchema,
    endsAt: timeSchema,
    repeatUnit: z
      .string()
      .transform((unit) => unit.toUpperCase())
      .pipe(z.enum(['DAY', 'WEEK', 'MONTH'], { error: 'must be DAY, WEEK or MONTH' }))
      .nullable()
      .optional(),
    repeatInterval: z.int().min(1).nullable().optional(),
    repeatEndsAt: timeSchema.nullable().optional(),
    pauseRuns: z.boolean().optional(),
  })
  .superRefine((window, ctx) => {
    for (const key of Object.keys(window)) {
      if (FIELDS.includes(key)) continue;
      const message = messages[key] ?? `is not a field of maintenance windows (they take ${FIELDS.join(', ')})`;
      ctx.addIssue({ code: 'custom', path: [key], message });
    }
  })
  // `repeatUnit: WEEK` alone means every week, as `--repeat-unit week` does in the CLI.
  .transform((window) =>
    window.repeatUnit && window.repeatInterval == null ? { ...window, repeatInterval: 1 } : window,
  );
export type DeclaredWindow = z.output<typeof windowSchema>;

/** What the API holds for a field the file leaves out, so deleting a line resets it. */
export const WINDOW_DEFAULTS: Plain = {
  tags: [],
  checks: [],
  repeatUnit: null,
  repeatInterval: null,
  repeatEndsAt: null,
  pauseRuns: true,
};

/** A window as the file writes it: the name without its marker, checks by logical id. */
export function windowView(raw: Plain, checkLogical: ReadonlyMap<string, string>): Plain {
  const checkIds = Array.isArray(raw.checkIds) ? (raw.checkIds as string[]) : [];
  return {
    ...raw,
    name: markers.parseMarkedName(String(raw.name))?.name ?? raw.name,
    // A check outside the project shows as its id: the file cannot name it, so the plan drops it.
    checks: checkIds.map((id) => checkLogical.get(id) ?? id),
  };
}

/** The body of POST and PUT (a full replacement): fields left out go back to the API's defaults. */
export function windowBody(declared: DeclaredWindow, project: string, checkIds: ReadonlyMap<string, string>): Plain {
  const { logicalId, name, checks, ...fields } = declared as DeclaredWindow & Plain;
  const ids = (checks ?? []).map((check) => {
    const id = checkIds.get(check);
    if (id === undefined) throw new CliError(`check ${check} has no id yet`);
    return id;
  });
  return { ...fields, name: markers.markedName(name, project, logicalId), checkIds: ids };
}
