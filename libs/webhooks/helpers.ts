import { randomInt, randomUUID } from 'node:crypto';
import type Handlebars from 'handlebars';
import { formatMoment, resolveMomentInput } from './moment.ts';

type HandlebarsEnv = typeof Handlebars;
type Helper = (this: unknown, ...args: unknown[]) => unknown;

interface CallOptions {
  fn?: (context: unknown) => string;
  inverse?: (context: unknown) => string;
  hash?: Record<string, unknown>;
}

/** What a render may set. Missing fields fall back to the defaults below. */
export interface RenderOptions {
  /** The name `{{REGION}}` gives; default "local". */
  region?: string;
  /** The instant `moment` formats and resolves relative expressions against; default the current time. */
  now?: Date;
  /** How long one render may run before it is stopped; default TEMPLATE_RENDER_BUDGET_MS. */
  budgetMs?: number;
}

export const DEFAULT_REGION = 'local';

/** Splits a helper call into its parameters and Handlebars' trailing options object. */
function split(args: unknown[]): { params: unknown[]; options: CallOptions } {
  const params = args.slice(0, -1);
  return { params, options: (args[args.length - 1] ?? {}) as CallOptions };
}

/** Handlebars' own truthiness: an empty list is false, as in `{{#if}}`. */
export function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

const isPrimitive = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * Equality as a template author means it: variables are strings (environment) or numbers
 * (RESPONSE_TIME), literals may be either, so 500 equals "500". null and undefined are equal.
 */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return isPrimitive(a) && isPrimitive(b) && String(a) === String(b);
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

/** Numbers (or numeric strings) compare as numbers, other strings as text; anything else does not compare. */
function compare(a: unknown, b: unknown): number | undefined {
  const x = toNumber(a);
  const y = toNumber(b);
  if (Number.isFinite(x) && Number.isFinite(y)) return x - y;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/** A helper that works as a block (`{{#gt A B}}…{{else}}…{{/gt}}`) and as a value (`(gt A B)`). */
function predicate(test: (params: unknown[]) => boolean): Helper {
  return function (this: unknown, ...args: unknown[]) {
    const { params, options } = split(args);
    const result = test(params);
    if (typeof options.fn !== 'function') return result;
    return result ? options.fn(this) : (options.inverse?.(this) ?? '');
  };
}

function contains(list: unknown, value: unknown): boolean {
  if (Array.isArray(list)) return list.some((item) => same(item, value));
  if (typeof list === 'string') return value !== null && value !== undefined && list.includes(String(value));
  return false;
}

function tagList(tags: unknown): string[] {
  if (Array.isArray(tags)) return tags.map(text);
  if (typeof tags === 'string') return tags.split(',');
  return [];
}

/** `{{tagValue TAGS "env"}}` gives "prod" for the tag "env:prod"; empty when there is no such tag. */
function tagValue(tags: unknown, key: unknown): string {
  const prefix = `${text(key)}:`;
  const tag = tagList(tags)
    .map((item) => item.trim())
    .find((item) => item.startsWith(prefix));
  return tag === undefined ? '' : tag.slice(prefix.length);
}

/** Items are trimmed and empty ones dropped, so "a, b,,c" gives three items. */
function splitText(value: unknown, separator: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  const sep = typeof separator === 'string' && separator !== '' ? separator : ',';
  return text(value)
    .split(sep)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function replaceAll(value: unknown, find: unknown, replacement: unknown): string {
  const source = text(value);
  const needle = text(find);
  // split/join rather than String.replaceAll, which would read "$&" in the replacement as a pattern.
  return needle === '' ? source : source.split(needle).join(text(replacement));
}

const comparison = (test: (difference: number) => boolean) =>
  predicate(([a, b]) => {
    const difference = compare(a, b);
    return difference !== undefined && test(difference);
  });

const STATIC_HELPERS: Record<string, Helper> = {
  eq: predicate(([a, b]) => same(a, b)),
  contains: predicate(([list, value]) => contains(list, value)),
  and: predicate((params) => params.length > 0 && params.every(truthy)),
  or: predicate((params) => params.some(truthy)),
  not: predicate(([value]) => !truthy(value)),
  gt: comparison((d) => d > 0),
  gte: comparison((d) => d >= 0),
  lt: comparison((d) => d < 0),
  lte: comparison((d) => d <= 0),
  startsWith: predicate(([value, prefix]) => (isPrimitive(value) ? String(value).startsWith(text(prefix)) : false)),
  uppercase: (...args) => text(split(args).params[0]).toUpperCase(),
  lowercase: (...args) => text(split(args).params[0]).toLowerCase(),
  tagValue: (...args) => tagValue(split(args).params[0], split(args).params[1]),
  replace: (...args) => {
    const [value, find, replacement] = split(args).params;
    return replaceAll(value, find, replacement);
  },
  split: (...args) => {
    const [value, separator] = split(args).params;
    return splitText(value, separator);
  },
  default: (...args) => {
    const [value, fallback] = split(args).params;
    return value === null || value === undefined || value === '' ? fallback : value;
  },
};

/** Helpers whose output depends on the render: the region, the clock and randomness. */
export function renderHelpers(options: RenderOptions = {}): Record<string, Helper> {
  const now = options.now ?? new Date();
  const region = options.region ?? DEFAULT_REGION;
  return liveRenderHelpers(() => ({ now, region }));
}

/**
 * The same helpers reading the render's clock and region when called, so one set can be built
 * once and serve every render (building and wrapping a set per render was most of its cost).
 */
export function liveRenderHelpers(current: () => { now: Date; region: string }): Record<string, Helper> {
  return {
    REGION: () => current().region,
    $UUID: () => randomUUID(),
    $RANDOM_NUMBER: () => randomInt(0, 1001),
    moment: (...args) => {
      const { now } = current();
      const { params } = split(args);
      if (params.length === 0) return formatMoment(now);
      if (params.length === 1) return formatMoment(now, text(params[0]));
      return formatMoment(resolveMomentInput(params[0], now), text(params[1]));
    },
  };
}

/**
 * Built-ins that gain a value form: `{{if COND "yes" "no"}}` and `(unless X)`. As blocks they
 * stay Handlebars' own, with its argument checks and `includeZero`.
 */
function withValueForm(builtin: Helper, negate: boolean): Helper {
  return function (this: unknown, ...args: unknown[]) {
    const { params, options } = split(args);
    if (typeof options.fn === 'function') return builtin.apply(this, args);
    const result = truthy(params[0]) !== negate;
    if (params.length === 1) return result;
    return result ? params[1] : (params[2] ?? '');
  };
}

/** Every helper name a template may call, built-ins included. */
export const HELPER_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(STATIC_HELPERS),
  ...Object.keys(renderHelpers()),
  'if',
  'unless',
  'each',
  'with',
  'lookup',
]);

export function registerHelpers(env: HandlebarsEnv): void {
  // `log` would write template output to the console, outside the service's logger.
  env.unregisterHelper('log');
  const builtinIf = env.helpers.if as unknown as Helper;
  const builtinUnless = env.helpers.unless as unknown as Helper;
  env.registerHelper('if', withValueForm(builtinIf, false));
  env.registerHelper('unless', withValueForm(builtinUnless, true));
  for (const [name, helper] of Object.entries({ ...STATIC_HELPERS, ...renderHelpers() }))
    env.registerHelper(name, helper);
}
