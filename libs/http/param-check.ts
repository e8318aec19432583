import type { z } from 'zod';

/** What a compiled check gives: the value zod would give, or undefined to let zod decide. */
export type FastCheck = (data: unknown) => Record<string, string> | undefined;

type Def = Record<string, unknown> & { type: string; checks?: { _zod: { def: Record<string, unknown> } }[] };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Formats whose zod check is a pattern test and nothing else. */
const PATTERN_FORMATS = new Set(['regex', 'uuid']);

/**
 * A precompiled check for the path parameters of hot routes: an object of plain strings with
 * length and pattern rules, which zod parses with a walk through its schema tree per request.
 * It only ever admits, giving the object zod would give (the declared keys, in order, same
 * strings); anything else (a failure, an extra key, a type it was not built for) is undefined,
 * and zod parses the input as before, so every 400 and its message stay zod's.
 * Returns undefined when the schema has anything it cannot check exactly (optional keys,
 * transforms, refinements, other formats): zod alone then.
 */
export function compileParamCheck(schema: z.ZodType): FastCheck | undefined {
  const def = defOf(schema);
  if (def.type !== 'object' || (def.checks?.length ?? 0) > 0) return undefined;
  const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
  if (catchall !== undefined && catchall !== 'never') return undefined;
  const fields: { key: string; test: (value: string) => boolean }[] = [];
  for (const [key, field] of Object.entries(def.shape as Record<string, unknown>)) {
    const test = compileString(field);
    if (!test) return undefined;
    fields.push({ key, test });
  }
  const count = fields.length;
  return (data) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
    let keys = 0;
    for (const _ in data) keys++;
    if (keys !== count) return undefined;
    const value: Record<string, string> = {};
    for (let i = 0; i < count; i++) {
      const { key, test } = fields[i]!;
      const given = (data as Record<string, unknown>)[key];
      if (typeof given !== 'string' || !test(given)) return undefined;
      value[key] = given;
    }
    return value;
  };
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
