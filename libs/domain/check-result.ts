import { z } from 'zod';
import { assertionComparisons, assertionSources } from './check/definition.ts';

/**
 * The check-result contract, version 1: what a runner reports after one run of a check. It is
 * validated at every boundary (HTTP ingest, bus consumer, store) with this one schema, and
 * `schemas/check-result.v1.json` is generated from it.
 *
 * Identifiers and our own fields are bounded and rejected when out of bounds. Free text that
 * comes from the monitored target (error messages, status texts, page URLs) is truncated
 * instead: a long stack trace must not send a failing run to the dead-letter queue, where it
 * would neither count nor alert.
 */

export const resultCheckTypes = [
  'API',
  'BROWSER',
  'HEARTBEAT',
  'MULTI_STEP',
  'TCP',
  'PLAYWRIGHT',
  'URL',
  'DNS',
] as const;
export type ResultCheckType = (typeof resultCheckTypes)[number];

export const heartbeatStatuses = ['RECEIVED', 'EARLY', 'LATE', 'GRACE', 'FAILING'] as const;
export type HeartbeatStatus = (typeof heartbeatStatuses)[number];

export const MAX_PAGES_PER_RESULT = 50;
/** A check has at most 50 assertions (see check/definition.ts). */
export const MAX_ASSERTIONS_PER_RESULT = 50;
/** Echoed assertion text (property, target, actual value) is cut here: the run view needs a glance, not a body. */
const MAX_ASSERTION_TEXT = 256;
const MAX_ASSERTION_MESSAGE = 512;
const MAX_ERROR_MESSAGE = 4096;
const MAX_STATUS_TEXT = 256;
const MAX_URL = 2048;
/** A day, in ms: anything longer is a unit mistake (µs or ns sent as ms), not a slow run. */
const MAX_DURATION_MS = 86_400_000;
// ClickHouse DateTime ends in 2106; earlier than 2000 is a clock that was never set.
const EARLIEST_START = Date.UTC(2000, 0, 1);
const LATEST_START = Date.UTC(2100, 0, 1);

const typesWithStatusCode: readonly ResultCheckType[] = ['API', 'URL'];
const typesWithPages: readonly ResultCheckType[] = ['BROWSER', 'PLAYWRIGHT'];
const typesWithScripts: readonly ResultCheckType[] = ['MULTI_STEP', 'PLAYWRIGHT', 'BROWSER'];

export const MAX_STEPS_PER_RESULT = 200;
export const MAX_REQUESTS_PER_RESULT = 100;
/** A script's console output is kept up to here (64 KiB of UTF-16 code units, the tail cut). */
export const MAX_SCRIPT_LOGS = 65_536;
/** Each request or response body, and each side's headers, is kept up to here. */
export const MAX_SCRIPT_HTTP_TEXT = 16_384;
const MAX_STEP_NAME = 512;
const MAX_HEADERS = 100;

// Lone UTF-16 surrogates cannot be encoded as UTF-8, so a store would silently turn them into
// U+FFFD; doing it here keeps what is validated identical to what is stored.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
function wellFormed(value: string): string {
  return value.replace(loneSurrogate, '\uFFFD');
}

function truncated(max: number) {
  return z.string().overwrite((value) => wellFormed(value).slice(0, max));
}

const uuid = z.uuid().toLowerCase();
const duration = z.number().nonnegative().max(MAX_DURATION_MS);
const count = z.number().int().nonnegative().max(1_000_000);

const startedAtSchema = z.iso
  .datetime({ offset: true })
  // zod runs this even after the format check failed: an unparseable value must stay as it is
  // (and be reported), not throw, or one bad record would fail its whole batch.
  .overwrite((value) => {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? value : new Date(ms).toISOString();
  })
  .refine((value) => {
    const ms = Date.parse(value);
    return ms >= EARLIEST_START && ms < LATEST_START;
  }, 'must be between 2000-01-01 and 2100-01-01')
  .describe('Start of the run, ISO 8601 with Z or an offset; normalised to UTC with millisecond precision');

const timingsSchema = z
  .object({
    wait: duration.optional(),
    dns: duration.optional(),
    tcp: duration.optional(),
    firstByte: duration.optional(),
    download: duration.optional(),
    total: duration.optional(),
    connection: duration.optional(),
    data: duration.optional(),
  })
  .strict()
  .describe('Phases of the request, in ms');

const pageSchema = z
  .object({
    index: z.number().int().nonnegative().max(999),
    url: truncated(MAX_URL),
    TTFB: duration.optional(),
    FCP: duration.optional(),
    LCP: duration.optional(),
    CLS: z.number().nonnegative().max(1000).optional(),
    TBT: duration.optional(),
    consoleErrors: count.default(0),
    networkErrors: count.default(0),
    userScriptErrors: count.default(0),
    documentErrors: count.default(0),
  })
  .strict();

const stepSchema = z
  .object({
    name: truncated(MAX_STEP_NAME),
    status: z.enum(['passed', 'failed', 'skipped']),
    durationMs: duration,
    error: truncated(MAX_ERROR_MESSAGE).optional(),
  })
  .strict();

/** Headers as sent or received, kept while the set fits in 16 KiB (later ones dropped, like free text is cut). */
const headersSchema = z
  .record(z.string().max(256).overwrite(wellFormed), truncated(MAX_SCRIPT_HTTP_TEXT))
  .overwrite((headers) => {
    let budget = MAX_SCRIPT_HTTP_TEXT;
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS)) {
      budget -= name.length + value.length;
      if (budget < 0) break;
      kept[name] = value;
    }
    return kept;
  });

const requestSchema = z
  .object({
    method: z.string().min(1).max(16).overwrite(wellFormed),
    url: truncated(MAX_URL),
    status: z.number().int().min(0).max(999).optional(),
    statusText: truncated(MAX_STATUS_TEXT).optional(),
    durationMs: duration.optional(),
    timings: timingsSchema.optional(),
    requestHeaders: headersSchema.optional(),
    requestBody: truncated(MAX_SCRIPT_HTTP_TEXT).optional(),
    responseHeaders: headersSchema.optional(),
    responseBody: truncated(MAX_SCRIPT_HTTP_TEXT).optional(),
  })
  .strict();

/** One assertion as the run judged it: what was asserted, whether it held, and what was seen. */
export const assertionOutcomeSchema = z
  .object({
    source: z.enum(assertionSources),
    property: truncated(MAX_ASSERTION_TEXT).default(''),
    comparison: z.enum(assertionComparisons),
    target: truncated(MAX_ASSERTION_TEXT).default(''),
    passed: z.boolean(),
    actual: truncated(MAX_ASSERTION_TEXT).default(''),
    message: truncated(MAX_ASSERTION_MESSAGE).optional(),
  })
  .strict();
export type AssertionOutcomeRecord = z.output<typeof assertionOutcomeSchema>;

const heartbeatSchema = z.object({ status: z.enum(heartbeatStatuses) }).strict();

const sslSchema = z
  .object({
    // Negative once the certificate has expired.
    daysRemaining: z.number().int().min(-100_000).max(100_000),
    domain: z.string().min(1).max(253).overwrite(wellFormed),
  })
  .strict();

export const artifactKinds = ['screenshot', 'trace', 'response-body'] as const;
export type ArtifactKind = (typeof artifactKinds)[number];
export const MAX_ARTIFACTS_PER_RESULT = 20;

/** A file kept with a run (in the artifact store); the result names it, the store holds its bytes. */
export const artifactRefSchema = z
  .object({
    id: uuid,
    kind: z.enum(artifactKinds),
    contentType: z.string().min(1).max(128),
    bytes: z
      .number()
      .int()
      .min(0)
      .max(1024 ** 3),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** What it shows, e.g. the request whose response body it is. */
    name: truncated(256).optional(),
  })
  .strict();
export type ArtifactRef = z.output<typeof artifactRefSchema>;

/** What a script run adds to its result (MULTI_STEP, PLAYWRIGHT, BROWSER with a script), and any run's artifacts. */
const scriptDetailsShape = {
  steps: z
    .array(stepSchema)
    .max(MAX_STEPS_PER_RESULT)
    .optional()
    .describe('Script runs (MULTI_STEP, PLAYWRIGHT, BROWSER with a script): each test and test.step, in order'),
  logs: truncated(MAX_SCRIPT_LOGS)
    .optional()
    .describe(
      "Script runs: the script's console output, at most 64 KiB. HEARTBEAT: the first 10 KiB of the ping's body (what the job sent)",
    ),
  requests: z
    .array(requestSchema)
    .max(MAX_REQUESTS_PER_RESULT)
    .optional()
    .describe('Script runs: the HTTP requests the script made, headers and bodies at most 16 KiB each'),
  runtimeId: z
    .string()
    .regex(/^\d{4}\.\d{2}$/)
    .optional()
    .describe('Script runs: the runtime the script ran in'),
  artifacts: z
    .array(artifactRefSchema)
    .max(MAX_ARTIFACTS_PER_RESULT)
    .optional()
    .describe(
      'BROWSER, PLAYWRIGHT, MULTI_STEP and API runs: screenshots, traces and failing response bodies, written to the artifact store before the result',
    ),
};

/** The stored document of a script run's details (analytics column check_results.script). */
export const scriptDetailsSchema = z.object(scriptDetailsShape).strict();
export type ScriptDetails = z.output<typeof scriptDetailsSchema>;

export const checkResultSchema = z
  .object({
    id: uuid.describe('Result id; the de-duplication key'),
    accountId: uuid,
    checkId: uuid,
    checkType: z.enum(resultCheckTypes),
    startedAt: startedAtSchema,
    runLocation: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters')
      .overwrite(wellFormed),
    hasFailures: z.boolean(),
    isDegraded: z.boolean().default(false),
    responseTime: duration.describe('ms'),
    attempts: z.number().int().min(1).max(100).default(1).describe('Runs including retries; retries = attempts - 1'),
    errorMessage: truncated(MAX_ERROR_MESSAGE).optional(),
    statusCode: z.number().int().min(100).max(999).optional().describe('API and URL only'),
    statusText: truncated(MAX_STATUS_TEXT).optional().describe('API and URL only'),
    timings: timingsSchema.optional(),
    pages: z.array(pageSchema).max(MAX_PAGES_PER_RESULT).optional().describe('BROWSER and PLAYWRIGHT only'),
    heartbeat: heartbeatSchema.optional().describe('Required for HEARTBEAT, absent otherwise'),
    ssl: sslSchema.optional(),
    assertions: z
      .array(assertionOutcomeSchema)
      .max(MAX_ASSERTIONS_PER_RESULT)
      .optional()
      .describe("Each assertion's outcome, in the check's order (runs of managed checks)"),
    // Added within v1: optional fields a v1 consumer that does not know them may ignore.
    ...scriptDetailsShape,
    noData: z
      .literal(true)
      .optional()
      .describe(
        'Not a run: the runner says an external check has had no result for two frequency windows. ' +
          'Only the alerter reads it (NO_DATA alerts); it is neither stored nor shown as a run',
      ),
  })
  .strict()
  .superRefine((result, ctx) => {
    const type = result.checkType;
    const onlyFor = (field: keyof typeof result, types: readonly ResultCheckType[]) => {
      if (result[field] !== undefined && !types.includes(type)) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `only ${types.join(' and ')} results carry ${field}, not ${type}`,
        });
      }
    };
    onlyFor('statusCode', typesWithStatusCode);
    onlyFor('statusText', typesWithStatusCode);
    onlyFor('pages', typesWithPages);
    onlyFor('heartbeat', ['HEARTBEAT']);
    for (const field of ['steps', 'requests', 'runtimeId'] as const) onlyFor(field, typesWithScripts);
    onlyFor('logs', [...typesWithScripts, 'HEARTBEAT']);
    onlyFor('artifacts', ['BROWSER', 'PLAYWRIGHT', 'MULTI_STEP', 'API']);
    if (type === 'HEARTBEAT' && result.heartbeat === undefined) {
      ctx.addIssue({ code: 'custom', path: ['heartbeat'], message: 'required for HEARTBEAT results' });
    }
    const seen = new Set<number>();
    result.pages?.forEach((page, position) => {
      if (seen.has(page.index)) {
        ctx.addIssue({
          code: 'custom',
          path: ['pages', position, 'index'],
          message: `duplicate page index ${page.index}`,
        });
      }
      seen.add(page.index);
    });
  })
  .describe(
    'check-results.v1: one run of a check. Fields are only ever added to v1 as optional ones (steps, logs, requests and runtimeId came with script checks), so a v1 record stays valid and a consumer may ignore fields it does not know.',
  );

/** A validated result: ids lower-case, startedAt canonical UTC, defaults applied. */
export type CheckResult = z.output<typeof checkResultSchema>;
/** What a producer may send. */
export type CheckResultInput = z.input<typeof checkResultSchema>;
export type CheckResultPage = NonNullable<CheckResult['pages']>[number];
export type CheckResultStep = NonNullable<CheckResult['steps']>[number];
export type CheckResultRequest = NonNullable<CheckResultInput['requests']>[number];

export type ParsedCheckResult = { ok: true; value: CheckResult } | { ok: false; message: string };

/**
 * Validates one record. The message lists every problem as `path: reason` (for example
 * `pages[0].LCP: Too small: expected number to be >=0`), for dead-letter reasons and 400s.
 */
export function parseCheckResult(input: unknown): ParsedCheckResult {
  const result = checkResultSchema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: result.error.issues.map(describeIssue).join('; ') };
}

/** The JSON Schema of what producers send (defaults are optional on input). */
export function checkResultJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(checkResultSchema, { io: 'input' }) as Record<string, unknown>;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown field`).join('; ');
  }
  const path = formatPath(issue.path);
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
