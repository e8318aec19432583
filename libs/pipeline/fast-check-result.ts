import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkResultJsonSchema, parseCheckResult, type CheckResult, type ParsedCheckResult } from '#domain';

/**
 * A compiled fast path for the check-results.v1 contract, for records that are already in the
 * canonical form producers are asked to send (lower-case ids, startedAt as UTC with milliseconds,
 * free text short and well-formed). ajv, compiled from the same JSON Schema the zod schema
 * generates, accepts them without zod's per-field work; the handful of rules that schema cannot
 * say (zod's refinements and rewrites) are checked here by hand. Anything else, valid or not,
 * goes to zod, which stays the one source of accept/reject messages and of normalisation; so the
 * fast path can only ever answer what zod answers (a differential test holds it to that).
 */
const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: false, useDefaults: false });
const validate = ajv.compile(checkResultJsonSchema());

const EARLIEST_START = Date.UTC(2000, 0, 1);
const LATEST_START = Date.UTC(2100, 0, 1);
const MAX_ERROR_MESSAGE = 4096;
const MAX_STATUS_TEXT = 256;
const MAX_URL = 2048;
const MAX_ASSERTION_TEXT = 256;
const MAX_ASSERTION_MESSAGE = 512;
const WITH_STATUS = new Set(['API', 'URL']);
const WITH_PAGES = new Set(['BROWSER', 'PLAYWRIGHT']);

type Raw = Record<string, unknown> & {
  id: string;
  accountId: string;
  checkId: string;
  checkType: string;
  startedAt: string;
  runLocation: string;
  errorMessage?: string;
  statusCode?: number;
  statusText?: string;
  pages?: (Record<string, unknown> & { index: number; url: string })[];
  heartbeat?: unknown;
  ssl?: { domain: string };
  assertions?: { property?: string; target?: string; actual?: string; message?: string }[];
};

// A lone UTF-16 surrogate is rewritten by zod (to U+FFFD): such a record is not canonical.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (value: string) => !loneSurrogate.test(value);
// Ids have passed the schema's UUID pattern (ASCII hex), so no upper-case letter means lower case
// (zod lower-cases them); a test allocates nothing, unlike toLowerCase.
const upperCase = /[A-Z]/;
const lowerCase = (value: string) => !upperCase.test(value);
const plain = (value: string | undefined, max: number) =>
  value === undefined || (value.length <= max && wellFormed(value));

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The digits of text[from, to) as a number, or NaN if any is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return Number.NaN;
    value = value * 10 + c;
  }
  return value;
}

/**
 * The instant of a text in exactly the form toISOString writes (YYYY-MM-DDTHH:mm:ss.sssZ, a real
 * calendar day), else NaN. Read by character codes: `new Date(Date.parse(t)).toISOString() === t`
 * said the same and cost 0.76 µs of the ingestor's ~23 µs per result.
 */
export function isoInstant(text: string): number {
  if (text.length !== 24) return Number.NaN;
  // The separators - - T : : . Z
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46 ||
    text.charCodeAt(23) !== 90
  )
    return Number.NaN;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  const milli = digits(text, 20, 23);
  if (!(month >= 1 && month <= 12 && hour <= 23 && minute <= 59 && second <= 59 && milli >= 0)) return Number.NaN;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 1 : 0;
  if (!(day >= 1 && day <= DAYS_IN_MONTH[month - 1]! + leap)) return Number.NaN;
  // Date.UTC reads years 0-99 as 1900-1999; such a text is rare enough for the slow parse.
  if (year < 100) return Date.parse(text);
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

/** True when zod would accept the (schema-valid) record and return it unchanged but for defaults. */
function canonical(raw: Raw): boolean {
  if (!lowerCase(raw.id) || !lowerCase(raw.accountId) || !lowerCase(raw.checkId)) return false;
  const ms = isoInstant(raw.startedAt);
  if (!(ms >= EARLIEST_START && ms < LATEST_START)) return false;
  if (!wellFormed(raw.runLocation)) return false;
  if (!plain(raw.errorMessage, MAX_ERROR_MESSAGE) || !plain(raw.statusText, MAX_STATUS_TEXT)) return false;
  if (raw.ssl !== undefined && !wellFormed(raw.ssl.domain)) return false;
  // Script runs' steps, logs and requests have their own cuts and type rules: zod judges those.
  if (raw.steps !== undefined || raw.logs !== undefined || raw.requests !== undefined || raw.runtimeId !== undefined)
    return false;
  const type = raw.checkType;
  if ((raw.statusCode !== undefined || raw.statusText !== undefined) && !WITH_STATUS.has(type)) return false;
  if ((raw.heartbeat !== undefined) !== (type === 'HEARTBEAT')) return false;
  if (raw.pages !== undefined) {
    if (!WITH_PAGES.has(type)) return false;
    const seen = new Set<number>();
    for (const page of raw.pages) {
      if (seen.has(page.index) || !plain(page.url, MAX_URL)) return false;
      seen.add(page.index);
    }
  }
  // Assertion outcomes: canonical when every default is present and no text needs cutting.
  for (const a of raw.assertions ?? []) {
    if (a.property === undefined || a.target === undefined || a.actual === undefined) return false;
    if (!plain(a.property, MAX_ASSERTION_TEXT) || !plain(a.target, MAX_ASSERTION_TEXT)) return false;
    if (!plain(a.actual, MAX_ASSERTION_TEXT) || !plain(a.message, MAX_ASSERTION_MESSAGE)) return false;
  }
  return true;
}

/** zod's output for a canonical record: the same fields with the defaults filled in. */
function withDefaults(raw: Raw): CheckResult {
  // A record that has every default already is zod's output as it is (0.5 µs of a copy saved per result).
  if (raw.isDegraded !== undefined && raw.attempts !== undefined && raw.pages === undefined)
    return raw as unknown as CheckResult;
  const out: Raw = { ...raw, isDegraded: raw.isDegraded ?? false, attempts: raw.attempts ?? 1 };
  if (raw.pages !== undefined)
    out.pages = raw.pages.map((page) => ({
      ...page,
      consoleErrors: page.consoleErrors ?? 0,
      networkErrors: page.networkErrors ?? 0,
      userScriptErrors: page.userScriptErrors ?? 0,
      documentErrors: page.documentErrors ?? 0,
    }));
  return out as unknown as CheckResult;
}

/** Whether the compiled path answers for this input (zod answers for everything else). */
export function takesFastPath(input: unknown): boolean {
  return validate(input) && canonical(input as Raw);
}

/** Same answer as parseCheckResult, faster for canonical records. */
export function parseCheckResultFast(input: unknown): ParsedCheckResult {
  if (takesFastPath(input)) return { ok: true, value: withDefaults(input as Raw) };
  return parseCheckResult(input);
}
