import { InvalidArgumentError, type Command } from 'commander';
import { contextOf, type Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { collect, defined, integer, readJsonObject } from '../input.ts';
import { example } from '../kit.ts';
import { maintenanceWindowSchema, type MaintenanceWindow } from '../schemas.ts';
import { describeWhen, durationMs, toUtc } from '../window-times.ts';

type Plain = Record<string, unknown>;
export const windowPath = (id: string) => `/v1/maintenance-windows/${encodeURIComponent(id)}`;
const UNITS = ['DAY', 'WEEK', 'MONTH'];
// The fields PUT takes: a GET answer less what the server owns (id, createdAt, updatedAt, activeNow).
const INPUT_FIELDS = [
  'name',
  'tags',
  'checkIds',
  'startsAt',
  'endsAt',
  'repeatInterval',
  'repeatUnit',
  'repeatEndsAt',
  'pauseRuns',
] as const;

interface WindowFlags {
  name?: string;
  tag?: string[];
  check?: string[];
  startsAt?: string;
  endsAt?: string;
  duration?: number;
  repeatUnit?: string;
  repeatInterval?: number;
  /** false: --no-repeat-ends-at (repeat for ever). */
  repeatEndsAt?: string | false;
  /** false: --no-repeat (a one-off window); only update has it. */
  repeat?: boolean;
  pauseRuns?: boolean;
  data?: string;
}

/** Commander parsers: a bad time or duration is a usage error, reported before any request. */
function time(raw: string): string {
  const parsed = toUtc(raw);
  if ('error' in parsed) throw new InvalidArgumentError(parsed.error);
  return parsed.utc;
}
function duration(raw: string): number {
  const ms = durationMs(raw);
  if (ms === undefined) throw new InvalidArgumentError('expected a duration such as 30m, 2h, 1h30m or 1d');
  return ms;
}
function unit(raw: string): string {
  const upper = raw.trim().toUpperCase();
  if (!UNITS.includes(upper)) throw new InvalidArgumentError(`expected one of ${UNITS.join(', ')} (any case)`);
  return upper;
}

function windowOptions(command: Command, mode: 'create' | 'update'): Command {
  const replaces = mode === 'update' ? ' (replaces the current ones; an empty value clears them)' : '';
  return command
    .option('--name <name>', 'window name')
    .option('--tag <tag>', `cover every check with this tag; repeat or separate with commas${replaces}`, collect)
    .option('--check <checkId>', `cover this check by id; repeat or separate with commas${replaces}`, collect)
    .option('--starts-at <time>', 'ISO 8601 with an offset: 2026-12-01T22:00Z, 2026-12-01T23:00+01:00', time)
    .option('--ends-at <time>', 'when the (first) occurrence ends; or give --duration', time)
    .option('--duration <duration>', 'how long each occurrence lasts: 30m, 2h, 1h30m, 1d', duration)
    .option(
      '--repeat-unit <unit>',
      'repeat every DAY, WEEK or MONTH (a monthly 31st falls on shorter months’ last day)',
      unit,
    )
    .option('--repeat-interval <n>', 'repeat every n units (default 1)', integer(1, 365))
    .option('--repeat-ends-at <time>', 'no occurrence starts after this time (ISO 8601 with an offset)', time)
    .option('--pause-runs', 'skip the scheduled runs of covered checks (the default)')
    .option('--no-pause-runs', 'let scheduled runs happen and be stored, but alert nobody');
}

/** `create` and `update`: flags (and --data) into the body of POST or PUT. */
export function registerWindowEdits(windows: Command): void {
  const create = windowOptions(
    windows.command('create').description('create a maintenance window; flags override the fields of --data'),
    'create',
  )
    .option('--data <json>', 'the whole body as JSON, @file or - (standard input)')
    .action(async (options: WindowFlags, command: Command) => {
      const ctx = contextOf(command);
      const body = apply(await readJsonObject(options.data), options, undefined);
      for (const [field, flag] of [
        ['name', '--name'],
        ['startsAt', '--starts-at'],
        ['endsAt', '--ends-at or --duration'],
      ] as const)
        if (body[field] === undefined)
          throw new UsageError(`A maintenance window needs ${flag} (or ${field} in --data)`);
      if (isEmpty(body.tags) && isEmpty(body.checkIds))
        throw new UsageError('A maintenance window covers checks by --tag or --check: name at least one');
      const created = await ctx.client().json(maintenanceWindowSchema, 'POST', '/v1/maintenance-windows', { body });
      report(ctx, created, 'Created');
    });
  example(
    create,
    'vigil mw create --name "Weekly deploy" --tag shop --starts-at 2026-12-01T22:00Z --duration 30m --repeat-unit week',
    'vigil mw create --name "DB migration" --check 0b8c… --starts-at "2026-12-05 02:00+01:00" --ends-at "2026-12-05 04:00+01:00" --no-pause-runs',
    'vigil mw create --name "Month end" --tag billing --starts-at 2027-01-31T20:00Z --duration 2h --repeat-unit month --repeat-ends-at 2027-12-31T23:59Z',
  );

  const update = windowOptions(
    windows
      .command('update')
      .description(
        'change some fields of a maintenance window; the others keep their values. A new --starts-at alone keeps the duration',
      )
      .argument('<windowId>', 'window id'),
    'update',
  )
    .option('--no-repeat', 'make it a one-off window (drops the repeat fields)')
    .option('--no-repeat-ends-at', 'repeat for ever')
    .option('--data <json>', 'fields to change as JSON, @file or - (standard input)')
    .action(async (id: string, options: WindowFlags, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.client();
      const current = await client.get(maintenanceWindowSchema, windowPath(id));
      // The API replaces a window whole (PUT), so the body starts from what it holds now.
      const stored: Plain = {};
      for (const field of INPUT_FIELDS) stored[field] = current[field];
      const body = apply({ ...stored, ...(await readJsonObject(options.data)) }, options, current);
      const updated = await client.json(maintenanceWindowSchema, 'PUT', windowPath(id), { body });
      report(ctx, updated, 'Updated');
    });
  example(
    update,
    'vigil mw update 5c1e… --starts-at 2026-12-08T22:00Z',
    'vigil mw update 5c1e… --duration 1h --no-pause-runs',
    'vigil mw update 5c1e… --no-repeat',
  );
}

/**
 * The flags over a body (the --data fields, or the stored window on update). Times arrive in UTC
 * already (the parsers convert them); the rules between flags are usage errors, the rest is the API's.
 */
function apply(base: Plain, flags: WindowFlags, current: MaintenanceWindow | undefined): Plain {
  if (flags.endsAt !== undefined && flags.duration !== undefined)
    throw new UsageError('Give --ends-at or --duration, not both');
  const body: Plain = {
    ...base,
    ...defined({ name: flags.name, tags: flags.tag, checkIds: flags.check, pauseRuns: flags.pauseRuns }),
  };
  const startsAt = flags.startsAt ?? (typeof body.startsAt === 'string' ? body.startsAt : undefined);
  if (flags.startsAt !== undefined) body.startsAt = flags.startsAt;
  if (flags.endsAt !== undefined) body.endsAt = flags.endsAt;
  else if (flags.duration !== undefined) {
    if (startsAt === undefined) throw new UsageError('--duration counts from the start: give --starts-at too');
    body.endsAt = new Date(Date.parse(startsAt) + flags.duration).toISOString();
  } else if (flags.startsAt !== undefined && current) {
    // Moving a window keeps its length: a new start alone must not leave the old end behind it.
    const length = Date.parse(current.endsAt) - Date.parse(current.startsAt);
    body.endsAt = new Date(Date.parse(flags.startsAt) + length).toISOString();
  }

  if (flags.repeat === false) {
    if (flags.repeatUnit !== undefined || flags.repeatInterval !== undefined || typeof flags.repeatEndsAt === 'string')
      throw new UsageError('--no-repeat drops the repeat: it goes with no other --repeat-… flag');
    return { ...body, repeatUnit: null, repeatInterval: null, repeatEndsAt: null };
  }
  if (flags.repeatUnit !== undefined) {
    body.repeatUnit = flags.repeatUnit;
    body.repeatInterval = flags.repeatInterval ?? (typeof body.repeatInterval === 'number' ? body.repeatInterval : 1);
  } else if (flags.repeatInterval !== undefined) {
    if (body.repeatUnit === undefined || body.repeatUnit === null)
      throw new UsageError('--repeat-interval counts in --repeat-unit (DAY, WEEK or MONTH): give it too');
    body.repeatInterval = flags.repeatInterval;
  }
  if (flags.repeatEndsAt !== undefined) body.repeatEndsAt = flags.repeatEndsAt === false ? null : flags.repeatEndsAt;
  return body;
}

const isEmpty = (value: unknown) => !Array.isArray(value) || value.length === 0;

function report(ctx: Context, window: MaintenanceWindow, done: string): void {
  ctx.out.result(window, () => {
    ctx.out.print(`${done} maintenance window ${window.name}: ${window.id}`);
    ctx.out.print(`  ${describeWhen(window)}${window.pauseRuns ? '' : ' (runs continue, alerts paused)'}`);
  });
  // The last occurrence starts by repeatEndsAt and lasts as long as the first.
  const length = Date.parse(window.endsAt) - Date.parse(window.startsAt);
  const lastEnd =
    window.repeatUnit === null ? Date.parse(window.endsAt) : Date.parse(window.repeatEndsAt ?? '9999-12-31') + length;
  // Accepted by the API, but almost always a typo in the year or the zone.
  if (lastEnd <= Date.now()) ctx.out.warn('this window is over: no occurrence of it lies in the future');
}
