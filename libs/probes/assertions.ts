import { JSONPath } from 'jsonpath-plus';
import { assertionSourcesByType, type Assertion } from '#domain';
import { createScrubber, type Scrubber } from './secrets.ts';
import type { AssertionOutcome, RunnableCheckType } from './types.ts';

/** What a run produced, for the assertions to look at. Fields a type does not have stay undefined. */
export interface Observed {
  statusCode?: number;
  /** Header names in lower case. */
  headers?: Record<string, string>;
  body?: string;
  responseTime: number;
  /** TCP reply. */
  responseData?: string;
  /** DNS: NOERROR, NXDOMAIN, SERVFAIL, REFUSED… */
  responseCode?: string;
  /** DNS: dig-like lines of the answer section. */
  textAnswer?: string;
  /** DNS: the answer in the dns-json form of DNS over HTTPS. */
  jsonAnswer?: unknown;
}

const MISSING = Symbol('missing');
type Value = unknown;

/** JSON text of a JSON value; strings stay bare, so EQUALS "ok" matches the string "ok". */
export function asText(value: Value): string {
  if (value === MISSING || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** One match is that value, several are an array of them, none is missing. */
function jsonPath(document: unknown, path: string): Value {
  if (path.trim() === '' || path.trim() === '$') return document;
  const matches = JSONPath({ path, json: document as object, wrap: true, eval: 'safe' }) as unknown[];
  if (matches.length === 0) return MISSING;
  return matches.length === 1 ? matches[0] : matches;
}

/** The value an assertion compares, or an error naming why there is none. */
function valueOf(assertion: Assertion, observed: Observed): { value: Value } | { error: string } {
  switch (assertion.source) {
    case 'STATUS_CODE':
      return { value: observed.statusCode ?? MISSING };
    case 'RESPONSE_TIME':
      return { value: observed.responseTime };
    case 'TEXT_BODY':
      return { value: observed.body ?? MISSING };
    case 'RESPONSE_DATA':
      return { value: observed.responseData ?? MISSING };
    case 'RESPONSE_CODE':
      return { value: observed.responseCode ?? MISSING };
    case 'TEXT_ANSWER':
      return { value: observed.textAnswer ?? MISSING };
    case 'HEADERS': {
      const headers = observed.headers ?? {};
      if (assertion.property === '') return { value: headers };
      const value = headers[assertion.property.toLowerCase()];
      return { value: value ?? MISSING };
    }
    case 'JSON_BODY': {
      const parsed = parseJson(observed.body ?? '');
      if (!parsed.ok) return { error: 'the body is not JSON' };
      return evaluatePath(parsed.value, assertion.property);
    }
    case 'JSON_ANSWER':
      return evaluatePath(observed.jsonAnswer ?? null, assertion.property);
  }
}

function evaluatePath(document: unknown, path: string): { value: Value } | { error: string } {
  try {
    return { value: jsonPath(document, path) };
  } catch (error) {
    return { error: `invalid JSONPath ${JSON.stringify(path)}: ${(error as Error).message}` };
  }
}

const isNullish = (value: Value) => value === MISSING || value === null || value === undefined;

function isEmpty(value: Value): boolean {
  if (isNullish(value)) return true;
  if (typeof value === 'string') return value.length === 0;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value as object).length === 0;
  return false;
}

function toNumber(value: Value): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

function equals(value: Value, target: string): boolean {
  if (isNullish(value)) return target === 'null' && value === null;
  if (typeof value === 'number' || typeof value === 'boolean') {
    const numeric = toNumber(target);
    if (typeof value === 'number' && !Number.isNaN(numeric)) return value === numeric;
    return String(value) === target.trim();
  }
  if (typeof value === 'string') return value === target;
  // Objects and arrays compare by content: the target is parsed as JSON when it is JSON.
  const parsed = parseJson(target);
  return parsed.ok ? JSON.stringify(parsed.value) === JSON.stringify(value) : asText(value) === target;
}

function hasValue(value: Value, target: string): boolean {
  if (Array.isArray(value)) return value.some((item) => equals(item, target));
  if (value !== null && typeof value === 'object') return Object.values(value).some((item) => equals(item, target));
  return equals(value, target);
}

function hasKey(value: Value, target: string): boolean {
  if (value === null || typeof value !== 'object') return false;
  const keys = Object.keys(value as object);
  // Header names are case-insensitive; JSON keys are not.
  return keys.includes(target);
}

function compare(assertion: Assertion, value: Value): boolean {
  const { target } = assertion;
  switch (assertion.comparison) {
    case 'EQUALS':
      return equals(value, target);
    case 'NOT_EQUALS':
      return !equals(value, target);
    case 'HAS_KEY':
      return hasKey(value, assertion.source === 'HEADERS' ? target.toLowerCase() : target);
    case 'NOT_HAS_KEY':
      return !hasKey(value, assertion.source === 'HEADERS' ? target.toLowerCase() : target);
    case 'HAS_VALUE':
      return hasValue(value, target);
    case 'NOT_HAS_VALUE':
      return !hasValue(value, target);
    case 'IS_EMPTY':
      return isEmpty(value);
    case 'NOT_EMPTY':
      return !isEmpty(value);
    case 'GREATER_THAN': {
      const [a, b] = [toNumber(value), toNumber(target)];
      return !Number.isNaN(a) && !Number.isNaN(b) && a > b;
    }
    case 'LESS_THAN': {
      const [a, b] = [toNumber(value), toNumber(target)];
      return !Number.isNaN(a) && !Number.isNaN(b) && a < b;
    }
    case 'CONTAINS':
      return !isNullish(value) && asText(value).includes(target);
    case 'NOT_CONTAINS':
      return isNullish(value) || !asText(value).includes(target);
    case 'IS_NULL':
      return isNullish(value);
    case 'NOT_NULL':
      return !isNullish(value);
  }
}

/** How an assertion reads in an error message: `JSON_BODY $.status EQUALS "ok"`. */
export function describeAssertion(assertion: Assertion): string {
  const property = assertion.property === '' ? '' : ` ${assertion.property}`;
  const unary = ['IS_EMPTY', 'NOT_EMPTY', 'IS_NULL', 'NOT_NULL'].includes(assertion.comparison);
  const target = unary ? '' : ` ${JSON.stringify(assertion.target)}`;
  return `${assertion.source}${property} ${assertion.comparison}${target}`;
}

/**
 * A value seen is kept up to this many characters before it is scrubbed and cut for display:
 * enough for every encoded form of the longest secret (10 000 bytes) to be whole before the cut.
 */
const SEEN_CAP = 256 * 1024;

/**
 * Judges every assertion of a run against what it observed. `actual` is the value as seen, not yet
 * scrubbed or cut (shownOutcome does both, in that order, once the run's secrets are known).
 */
export function judgeAssertions(
  checkType: RunnableCheckType,
  assertions: readonly Assertion[],
  observed: Observed,
): AssertionOutcome[] {
  const allowed: readonly string[] =
    checkType === 'BROWSER' ? [] : ((assertionSourcesByType as Record<string, readonly string[]>)[checkType] ?? []);
  return assertions.map((assertion) => {
    if (!allowed.includes(assertion.source))
      return {
        assertion,
        passed: false,
        actual: '',
        message: `${assertion.source} does not apply to ${checkType} checks`,
      };
    const found = valueOf(assertion, observed);
    if ('error' in found) return { assertion, passed: false, actual: '', message: found.error };
    const actual = found.value === MISSING ? '(missing)' : asText(found.value).slice(0, SEEN_CAP);
    return { assertion, passed: compare(assertion, found.value), actual };
  });
}

/** An outcome as users see it: secrets scrubbed first, then the actual value cut to 200 characters. */
export function shownOutcome(outcome: AssertionOutcome, scrub: Scrubber): AssertionOutcome {
  const actual = scrub.shorten(outcome.actual);
  if (outcome.message !== undefined) return { ...outcome, actual, message: scrub(outcome.message) };
  return outcome.passed ? { ...outcome, actual } : { ...outcome, actual, message: `actual ${actual}` };
}

/** Evaluates every assertion of a run against what it observed, as shown to users. */
export function evaluateAssertions(
  checkType: RunnableCheckType,
  assertions: readonly Assertion[],
  observed: Observed,
  scrub: Scrubber = createScrubber([]),
): AssertionOutcome[] {
  return judgeAssertions(checkType, assertions, observed).map((outcome) => shownOutcome(outcome, scrub));
}
