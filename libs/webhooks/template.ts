import Handlebars from 'handlebars';
import { ValidationError } from '#core';
import {
  collectVariables,
  findIssue,
  firstLiteralCharacter,
  routeThroughHelpers,
  type TemplateIssue,
  type VariableReference,
} from './ast.ts';
import {
  DEFAULT_REGION,
  HELPER_NAMES,
  liveRenderHelpers,
  registerHelpers,
  renderHelpers,
  type RenderOptions,
} from './helpers.ts';
import {
  limitIssue,
  RenderBudgetExceeded,
  TEMPLATE_RENDER_BUDGET_MS,
  withDeadline,
  withLiveDeadline,
} from './limits.ts';
import { parseErrorPosition } from './parse-error.ts';

/** Where a template's output goes, which decides how `{{X}}` is encoded. */
export type TemplateContext = 'url' | 'header' | 'query' | 'body-json' | 'body-text';

export const TEMPLATE_MAX_BYTES = 64 * 1024;

export type TemplateValidation = { ok: true } | ({ ok: false } & TemplateIssue);

/** Renders a compiled template against a set of variables. */
export type CompiledTemplate = (variables: Readonly<Record<string, unknown>>, options?: RenderOptions) => string;

const ESCAPE_HELPER = '__vigilEscape';
const RAW_HELPER = '__vigilRaw';

// encodeURIComponent throws on a lone surrogate; a check name must never make a delivery throw.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed = (value: string): string => value.replace(LONE_SURROGATE, '\uFFFD');

const ESCAPERS: Record<TemplateContext, (value: string) => string> = {
  url: (value) => encodeURIComponent(wellFormed(value)),
  query: (value) => encodeURIComponent(wellFormed(value)),
  header: (value) => value.replace(/[\r\n]/g, ''),
  // The string's JSON form without its quotes: the template supplies them, as in "msg": "{{X}}".
  'body-json': (value) => JSON.stringify(value).slice(1, -1),
  'body-text': (value) => Handlebars.escapeExpression(value),
};

const asText = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/**
 * `{{{X}}}` in a JSON body: a string goes in as it is, anything else as JSON, so that
 * `"tags": {{{TAGS}}}` gives `"tags": ["a","b"]`. (`{{TAGS}}` gives the escaped text `a,b`.)
 */
function rawJson(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// Not strict: a variable that is missing renders as empty rather than failing the delivery.
const COMPILE_OPTIONS = { strict: false, knownHelpersOnly: false, data: true, compat: false } as const;

// Handlebars' defaults, stated so that no upgrade or global setting can loosen them.
const RUNTIME_OPTIONS = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false } as const;

type Env = typeof Handlebars;
const environments = new Map<TemplateContext, Env>();

/**
 * The render in progress: its deadline, clock and region. Renders are synchronous, so one slot
 * is enough (each render saves and restores it, in case one ever runs inside another); the
 * helpers read it, which lets one wrapped set per environment serve every render.
 */
interface ActiveRender {
  deadline: number;
  now: Date;
  region: string;
}
let active: ActiveRender = { deadline: Infinity, now: new Date(0), region: DEFAULT_REGION };
const budgetedHelpers = new Map<TemplateContext, ReturnType<typeof withLiveDeadline>>();

/** The environment's helpers and the render helpers, each checking the active render's deadline first. */
function helpersFor(context: TemplateContext): ReturnType<typeof withLiveDeadline> {
  let helpers = budgetedHelpers.get(context);
  if (!helpers) {
    const live = liveRenderHelpers(() => active);
    helpers = withLiveDeadline({ ...environment(context).helpers, ...live }, () => active.deadline);
    budgetedHelpers.set(context, helpers);
  }
  return helpers;
}

/** One isolated Handlebars instance per context, so no helper or escaper leaks between them or into other code. */
function environment(context: TemplateContext): Env {
  let env = environments.get(context);
  if (!env) {
    env = Handlebars.create();
    registerHelpers(env);
    const escape = ESCAPERS[context];
    env.registerHelper(ESCAPE_HELPER, (value: unknown) => escape(asText(value)));
    env.registerHelper(RAW_HELPER, rawJson);
    environments.set(context, env);
  }
  return env;
}

/**
 * A template whose literal text starts with `{` or `[` is a JSON body; anything else is text.
 * Literal text, so that `{{X}} is down` is text while `{{#if A}}{"a": 1}{{/if}}` is JSON.
 */
export function bodyContext(template: string): 'body-json' | 'body-text' {
  return remember(bodyContextCache, template, () => {
    const parsed = parse(template);
    const start = parsed.ok ? firstLiteralCharacter(parsed.program) : template.trimStart()[0];
    return start === '{' || start === '[' ? 'body-json' : 'body-text';
  });
}

function sizeIssue(source: string): TemplateIssue | undefined {
  if (Buffer.byteLength(source, 'utf8') <= TEMPLATE_MAX_BYTES) return undefined;
  // Point at the first character past the limit.
  let bytes = 0;
  let index = 0;
  for (const char of source) {
    bytes += Buffer.byteLength(char, 'utf8');
    if (bytes > TEMPLATE_MAX_BYTES) break;
    index += char.length;
  }
  const before = source.slice(0, index);
  const line = before.split('\n').length;
  return {
    message: `template is larger than ${TEMPLATE_MAX_BYTES} bytes (64 KiB)`,
    line,
    column: index - before.lastIndexOf('\n'),
  };
}

function issueFromError(source: string, error: unknown): TemplateIssue {
  const message = error instanceof Error ? error.message : String(error);
  const parsed = parseErrorPosition(source, message);
  if (parsed) return parsed;
  const located = error as { lineNumber?: unknown; column?: unknown };
  const line = typeof located.lineNumber === 'number' ? located.lineNumber : 1;
  const column = typeof located.column === 'number' ? located.column + 1 : 1;
  // Handlebars appends " - line:column" to its own messages; the position is returned separately.
  return { message: message.replace(/ - \d+:\d+$/, ''), line, column };
}

type Parsed = { ok: true; program: hbs.AST.Program } | { ok: false; issue: TemplateIssue };

function parse(source: string): Parsed {
  const tooLarge = sizeIssue(source) ?? limitIssue(source);
  if (tooLarge) return { ok: false, issue: tooLarge };
  const env = environment('body-text');
  let program: hbs.AST.Program;
  try {
    program = env.parse(source);
  } catch (error) {
    return { ok: false, issue: issueFromError(source, error) };
  }
  const issue = findIssue(program, HELPER_NAMES);
  if (issue) return { ok: false, issue };
  try {
    // Compiling to code finds what only the compiler checks, such as "foo/../bar" paths.
    env.precompile(program, COMPILE_OPTIONS);
  } catch (error) {
    return { ok: false, issue: issueFromError(source, error) };
  }
  return { ok: true, program };
}

/** Checks a template without rendering it. Line and column are 1-based; the message does not repeat them. */
export function validateTemplate(source: string): TemplateValidation {
  const parsed = parse(source);
  return parsed.ok ? { ok: true } : { ok: false, ...parsed.issue };
}

// Channels render the same few templates over and over; parsing and compiling once is enough.
// Keyed by the source itself: a string caches its own hash, so a channel's template, read once
// per batch, is looked up without hashing its text again per render (a SHA-256 of every source
// per render cost more than the render). The compiled function keeps its source anyway.
const CACHE_LIMIT = 500;
const compiledCache = new Map<string, Map<string, CompiledTemplate>>();
const variablesCache = new Map<string, VariableReference[]>();
const bodyContextCache = new Map<string, 'body-json' | 'body-text'>();

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const value = make();
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

/** The top-level variables a template reads (empty when it does not parse). */
export function templateVariables(source: string): VariableReference[] {
  return remember(variablesCache, source, () => {
    const parsed = parse(source);
    return parsed.ok ? collectVariables(parsed.program, HELPER_NAMES) : [];
  });
}

/**
 * Compiles a template for one context. Throws ValidationError when it is not valid, or when it
 * fails while rendering; the message starts with `field` and names the line and column.
 */
export function compileTemplate(source: string, context: TemplateContext, field = 'template'): CompiledTemplate {
  // By source, then by where it is used (the field names the errors; the context the encoding).
  const uses = remember(compiledCache, source, () => new Map<string, CompiledTemplate>());
  const use = `${context}:${field}`;
  let compiled = uses.get(use);
  if (compiled === undefined) {
    compiled = compile(source, context, field);
    uses.set(use, compiled);
  }
  return compiled;
}

/**
 * The reference path, uncached, with the helpers built and wrapped for each render (as before
 * the shared set): tests hold compileTemplate to it. Not for production use.
 */
export function compileTemplateReference(source: string, context: TemplateContext, field = 'template') {
  return compile(source, context, field, true);
}

function compile(source: string, context: TemplateContext, field: string, reference = false): CompiledTemplate {
  const parsed = parse(source);
  if (!parsed.ok) {
    const { message, line, column } = parsed.issue;
    throw new ValidationError(`${field}: line ${line}, column ${column}: ${message}`, { details: { line, column } });
  }
  const env = environment(context);
  routeThroughHelpers(parsed.program, HELPER_NAMES, ESCAPE_HELPER, context === 'body-json' ? RAW_HELPER : undefined);
  const template = env.compile(parsed.program, COMPILE_OPTIONS);
  const helpers = helpersFor(context);
  const shared = { ...RUNTIME_OPTIONS, helpers };
  const runtimeFor = (options: RenderOptions, deadline: number) =>
    reference
      ? { ...RUNTIME_OPTIONS, helpers: withDeadline({ ...env.helpers, ...renderHelpers(options) }, deadline) }
      : shared;
  return (variables, options = {}) => {
    // A null-prototype copy: nothing inherited is there to be looked up.
    const data = Object.assign(Object.create(null) as Record<string, unknown>, variables);
    const budgetMs = options.budgetMs ?? TEMPLATE_RENDER_BUDGET_MS;
    const previous = active;
    active = {
      deadline: performance.now() + budgetMs,
      now: options.now ?? new Date(),
      region: options.region ?? DEFAULT_REGION,
    };
    try {
      return template(data, runtimeFor(options, active.deadline));
    } catch (error) {
      if (error instanceof RenderBudgetExceeded) {
        throw new ValidationError(
          `${field}: rendering took longer than ${budgetMs} ms (TEMPLATE_RENDER_BUDGET_MS); loops nested over large lists multiply, simplify the template`,
          { cause: error },
        );
      }
      const { message, line, column } = issueFromError(source, error);
      throw new ValidationError(`${field}: line ${line}, column ${column}: ${message}`, {
        cause: error,
        details: { line, column },
      });
    } finally {
      active = previous;
    }
  };
}
