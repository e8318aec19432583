import type { z } from 'zod';
import { numberChecks } from './serializer.ts';

/** What a compiled check gives: the value zod would give, or undefined to let zod decide. */
export type FastCheck = (data: unknown) => Record<string, unknown> | undefined;

/** A field's check: the value zod would give for it, or NO when zod must decide. */
const NO = Symbol('no');
type FieldCheck = (value: unknown) => unknown;

type Def = Record<string, unknown> & { type: string; checks?: { _zod: { def: Record<string, unknown> } }[] };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Formats whose zod check is a pattern test and nothing else. */
const PATTERN_FORMATS = new Set(['regex', 'uuid']);

/**
 * A precompiled check for the path parameters and query strings of hot routes: an object of
 * strings with length and pattern rules, enums, coerced whole numbers and repeatable keys
 * (see compileField), required or optional, which zod parses with a walk through its schema tree per request.
 * It only ever admits, giving the object zod would give (the declared keys, in order, same
 * strings); anything else (a failure, an extra key, a type it was not built for) is undefined,
 * and zod parses the input as before, so every 400 and its message stay zod's.
 * Returns undefined when the schema has anything it cannot check exactly (transforms,
 * refinements, defaults, other formats): zod alone then.
 */
export function compileParamCheck(schema: z.ZodType): FastCheck | undefined {
  const def = defOf(schema);
  if (def.type !== 'object' || (def.checks?.length ?? 0) > 0) return undefined;
  const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
  if (catchall !== undefined && catchall !== 'never') return undefined;
  const fields: { key: string; optional: boolean; check: FieldCheck }[] = [];
  for (const [key, field] of Object.entries(def.shape as Record<string, unknown>)) {
    const fieldDef = defOf(field);
    const optional = fieldDef.type === 'optional' && (fieldDef.checks?.length ?? 0) === 0;
    const check = compileField(optional ? fieldDef.innerType : field);
    if (!check || key === '__proto__') return undefined;
    fields.push({ key, optional, check });
  }
  const declared = new Set(fields.map((field) => field.key));
  const count = fields.length;
  return (data) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
    // Every key given is declared (an unknown one is zod's to name, or to drop).
    for (const key in data) if (!declared.has(key)) return undefined;
    const value: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const { key, optional, check } = fields[i]!;
      // zod asks `in`, and leaves an absent optional key out of its value.
      if (optional && !(key in data)) continue;
      const given = check((data as Record<string, unknown>)[key]);
      if (given === NO) return undefined;
      value[key] = given;
    }
    return value;
  };
}

/**
 * A field's check, for the shapes query strings take: a plain string (with the rules below), an
 * enum of strings, a coerced number with int/min/max checks (zod's Number(), then its tests), or
 * a union of a string and an array of strings (a repeated key). Anything else: undefined. Each
 * admits only values zod admits, giving zod's value (undefined is never admitted: zod decides).
 */
function compileField(schema: unknown): FieldCheck | undefined {
  const def = defOf(schema);
  if (def.type === 'string') {
    const test = compileString(schema);
    return test && ((value) => (typeof value === 'string' && test(value) ? value : NO));
  }
  if (def.type === 'enum' && (def.checks?.length ?? 0) === 0) {
    const values = Object.values(def.entries as Record<string, unknown>);
    if (values.some((v) => typeof v !== 'string')) return undefined;
    const allowed = new Set(values);
    return (value) => (typeof value === 'string' && allowed.has(value) ? value : NO);
  }
  if (def.type === 'number' && def.coerce === true && def.check === undefined) {
    const tests = numberChecks(def.checks);
    if (tests === null) return undefined;
    return (value) => {
      if (typeof value !== 'string') return NO;
      const n = Number(value);
      if (!Number.isFinite(n)) return NO;
      for (const test of tests) if (!test(n)) return NO;
      return n;
    };
  }
  if (def.type === 'union' && (def.checks?.length ?? 0) === 0) {
    const [first, second, ...rest] = def.options as unknown[];
    const array = second === undefined ? undefined : defOf(second);
    const plain = (s: unknown) => {
      const d = defOf(s);
      return d.type === 'string' && !d.coerce && (d.checks?.length ?? 0) === 0 && d.check === undefined;
    };
    if (rest.length > 0 || !plain(first) || array?.type !== 'array' || (array.checks?.length ?? 0) > 0)
      return undefined;
    if (!plain(array.element)) return undefined;
    // zod takes the first option that succeeds: a string as it is, else a copy of an array of strings.
    return (value) => {
      if (typeof value === 'string') return value;
      if (!Array.isArray(value)) return NO;
      const copy: string[] = new Array(value.length);
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item !== 'string') return NO;
        copy[i] = item;
      }
      return copy;
    };
  }
  return undefined;
}

/** A plain z.string() with min, max, exact length and pattern checks; undefined for anything else. */
function compileString(schema: unknown): ((value: string) => boolean) | undefined {
  const def = defOf(schema);
  if (def.type !== 'string' || def.coerce) return undefined;
  const tests: ((value: string) => boolean)[] = [];
  // A format schema such as z.uuid() is itself a check, run before the ones added to it.
  const rules = [...(def.check === undefined ? [] : [def]), ...(def.checks ?? []).map((check) => check._zod.def)];
  for (const rule of rules) {
    if (rule.check === 'min_length') {
      const min = rule.minimum as number;
      tests.push((value) => value.length >= min);
    } else if (rule.check === 'max_length') {
      const max = rule.maximum as number;
      tests.push((value) => value.length <= max);
    } else if (rule.check === 'length_equals') {
      const length = rule.length as number;
      tests.push((value) => value.length === length);
    } else if (rule.check === 'string_format' && PATTERN_FORMATS.has(rule.format as string)) {
      const pattern = rule.pattern as RegExp;
      // zod resets lastIndex before each test, so a global pattern behaves the same here.
      tests.push((value) => {
        pattern.lastIndex = 0;
        return pattern.test(value);
      });
    } else return undefined;
  }
  return (value) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(value)) return false;
    return true;
  };
}
