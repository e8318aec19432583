import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * A compiled response serializer that checks and writes a value in one pass, for the shapes it
 * knows exactly (plain objects, strings, numbers, booleans, null, enums, literals, arrays,
 * optional, nullable, unions), and hands every other part of a schema to zod itself.
 *
 * Why not zod alone: `safeEncode` builds a copy of the response and `JSON.stringify` walks it
 * again; on a small read route that was the largest single cost above the framework.
 *
 * Equivalence with the zod path (`safeEncode` then `JSON.stringify`) is by construction:
 * - Each inline node accepts exactly what zod's parser accepts for that node (the rules are
 *   zod 4's, read from its source: `typeof` checks, finite numbers, `in` for absent keys, the
 *   first union option that succeeds), and writes what `JSON.stringify` would write for zod's output.
 * - A node with checks (formats, refinements, string lengths, trim…), a transform, a catchall, a
 *   record that is not a plain string-keyed object, or any type not listed is run through zod (`safeEncode` on that node) and its output
 *   stringified, so what it accepts and writes is zod's own. Defaults write their inner schema:
 *   encoding never substitutes them.
 * - When anything fails, the whole value goes to the zod serializer, which throws its usual error.
 * `serializer.test.ts` and the API's route test hold this to the zod path byte for byte.
 */

/** A part failed validation. */
const FAIL = Symbol('fail');
/** A part is `undefined`: `JSON.stringify` leaves the key out of an object and writes null in an array. */
const UNDEF = Symbol('undefined');
type Out = string | typeof FAIL | typeof UNDEF;
type Writer = (value: unknown) => Out;

// zod 4 internals read here: def.type, def.checks, the $ZodCheck trait, optin/optout.
interface ZodInternals {
  def: {
    type: string;
    checks?: unknown[];
    coerce?: boolean;
    shape?: Record<string, z.ZodType>;
    catchall?: z.ZodType;
    innerType?: z.ZodType;
    element?: z.ZodType;
    options?: z.ZodType[];
    entries?: Record<string, unknown>;
    values?: unknown[];
    keyType?: z.ZodType;
    valueType?: z.ZodType;
  };
  traits: Set<string>;
  optin?: string;
  optout?: string;
}
const internals = (schema: z.ZodType) => (schema as unknown as { _zod: ZodInternals })._zod;

/** An array index as a key: `JSON.stringify` would write it before the others, not in shape order. */
const INDEX_KEY = /^(0|[1-9]\d*)$/;

/** Runs zod on one node: its answer, stringified, is by definition the zod path's. */
function delegate(schema: z.ZodType): Writer {
  return (value) => {
    let result;
    try {
      result = z.safeEncode(schema, value);
    } catch {
      return FAIL;
    }
    if (!result.success) return FAIL;
    const text = JSON.stringify(result.data);
    return text === undefined ? UNDEF : text;
  };
}

/** How many nodes were compiled inline and how many went to zod (for tests and the profile). */
export interface CompileStats {
  inline: number;
  delegated: number;
}

function compile(schema: z.ZodType, stats: CompileStats, stack: Set<z.ZodType>): Writer {
  const zod = internals(schema);
  const def = zod.def;
  // A schema that is itself a check (string formats, z.int()) or carries checks runs them: zod's job.
  // So does a recursive one (met again below itself): zod's memoizer handles its cycles.
  const plain = !zod.traits.has('$ZodCheck') && !(def.checks?.length ?? 0) && !def.coerce && !stack.has(schema);
  if (!plain) {
    const checked = def.type === 'number' && !zod.traits.has('$ZodCheck') && !def.coerce && numberChecks(def.checks);
    if (checked) return (stats.inline++, checkedNumber(checked));
    return (stats.delegated++, delegate(schema));
  }
  stack.add(schema);
  try {
    return compileNode(schema, def, stats, stack);
  } finally {
    stack.delete(schema);
  }
}

function compileNode(schema: z.ZodType, def: ZodInternals['def'], stats: CompileStats, stack: Set<z.ZodType>): Writer {
  stats.inline++;
  switch (def.type) {
    case 'string':
      return (value) => (typeof value === 'string' ? JSON.stringify(value) : FAIL);
    case 'number':
      // zod rejects NaN and ±Infinity; for finite numbers String() is what JSON.stringify writes.
      return (value) => (typeof value === 'number' && Number.isFinite(value) ? String(value) : FAIL);
    case 'boolean':
      return (value) => (value === true ? 'true' : value === false ? 'false' : FAIL);
    case 'null':
      return (value) => (value === null ? 'null' : FAIL);
    case 'any':
    case 'unknown':
      // zod passes the value through untouched, so its JSON is the value's own.
      return (value) => {
        const text = JSON.stringify(value);
        return text === undefined ? UNDEF : text;
      };
    case 'enum':
    case 'literal': {
      const values = def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? []);
      // zod 4 getEnumValues drops the reverse mappings of numeric TS enums; let zod decide those.
      if (def.type === 'enum' && values.some((v) => typeof v === 'number')) break;
      // JSON.stringify throws on a bigint; the zod path's throw is the one to keep.
      if (values.some((v) => typeof v === 'bigint')) break;
      const allowed = new Set(values);
      return (value) => {
        if (!allowed.has(value)) return FAIL;
        const text = JSON.stringify(value);
        return text === undefined ? UNDEF : text;
      };
    }
    case 'default':
    case 'prefault':
      // Serializing is zod's backward direction, where both run their inner schema untouched (no
      // substitution); their optin ('defaulted') still rules absent keys, in compileObject.
      return compile(def.innerType!, stats, stack);
    case 'nullable': {
      const inner = compile(def.innerType!, stats, stack);
      return (value) => (value === null ? 'null' : inner(value));
    }
    case 'optional': {
      // An inner default would substitute for undefined; only plain optional passes it through.
      if (internals(def.innerType!).optin === 'defaulted') break;
      const inner = compile(def.innerType!, stats, stack);
      return (value) => (value === undefined ? UNDEF : inner(value));
    }
    case 'array': {
      const element = compile(def.element!, stats, stack);
      return (value) => {
        if (!Array.isArray(value)) return FAIL;
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const part = element(value[i]);
          if (part === FAIL) return FAIL;
          out += (i === 0 ? '' : ',') + (part === UNDEF ? 'null' : part);
        }
        return out + ']';
      };
    }
    case 'union': {
      const options = def.options!.map((option) => compile(option, stats, stack));
      // zod takes the first option that succeeds.
      return (value) => {
        for (const option of options) {
          const part = option(value);
          if (part !== FAIL) return part;
        }
        return FAIL;
      };
    }
    case 'record': {
      const key = def.keyType as z.ZodType | undefined;
      const keyDef = key ? internals(key) : null;
      const plainKey =
        keyDef?.def.type === 'string' &&
        !keyDef.traits.has('$ZodCheck') &&
        !(keyDef.def.checks?.length ?? 0) &&
        !keyDef.def.coerce;
      if (!plainKey || (def as { mode?: string }).mode === 'loose' || (def as { partial?: boolean }).partial) break;
      return compileRecord(compile(def.valueType as z.ZodType, stats, stack), delegate(schema));
    }
    case 'object': {
      // A getter in the shape (how zod 4 writes recursive objects) is read lazily by zod: leave it to zod.
      const descriptors = Object.getOwnPropertyDescriptors(def.shape!);
      if (Object.values(descriptors).some((d) => d.get !== undefined || !d.enumerable)) break;
      // A loose object (catchall unknown or any) passes its other keys through untouched; other catchalls are zod's.
      const loose = def.catchall !== undefined && passesThrough(def.catchall);
      if ((def.catchall && !loose) || Object.getOwnPropertySymbols(def.shape!).length) break;
      if (Object.keys(def.shape!).some((key) => INDEX_KEY.test(key))) break;
      return compileObject(def.shape!, stats, stack, loose ? delegate(schema) : undefined);
    }
  }
  stats.inline--;
  stats.delegated++;
  return delegate(schema);
}

interface CheckDef {
  check?: string;
  format?: string;
  value?: unknown;
  inclusive?: boolean;
  when?: unknown;
}
export type NumberTest = (value: number) => boolean;

/**
 * The checks of `z.number().int().min(…).max(…)` (and nonnegative, positive…) as plain tests, or
 * null when any other check is present. Each is zod's own test: `.int()` is the safeint format
 * (Number.isSafeInteger: an integer within ±(2^53 − 1)), min and max compare inclusively or not.
 * A number passes when every check passes, in any order, so their order does not matter.
 */
export function numberChecks(checks: unknown[] | undefined): NumberTest[] | null {
  const tests: NumberTest[] = [];
  for (const check of checks ?? []) {
    const def = (check as { _zod: { def: CheckDef } })._zod.def;
    if (def.when !== undefined) return null;
    const bound = def.value;
    if (def.check === 'number_format' && def.format === 'safeint') tests.push(Number.isSafeInteger);
    else if (def.check === 'greater_than' && typeof bound === 'number')
      tests.push(def.inclusive ? (v) => v >= bound : (v) => v > bound);
    else if (def.check === 'less_than' && typeof bound === 'number')
      tests.push(def.inclusive ? (v) => v <= bound : (v) => v < bound);
    else return null;
  }
  return tests;
}

function checkedNumber(tests: NumberTest[]): Writer {
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return FAIL;
    for (const test of tests) if (!test(value)) return FAIL;
    return String(value);
  };
}

/**
 * `z.record(z.string(), value)` on a plain object (prototype Object.prototype or null, no own
 * `constructor`, `toJSON`, `__proto__` or symbol keys): zod then visits the own enumerable keys in
 * `Reflect.ownKeys` order, which is also the order `JSON.stringify` writes its output in. Anything
 * less plain goes to zod (`slow`), whose plain-object test has more cases than are worth copying.
 */
function compileRecord(valueWriter: Writer, slow: Writer): Writer {
  return (value) => {
    if (typeof value !== 'object' || value === null) return slow(value);
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return slow(value);
    const keys = Reflect.ownKeys(value);
    let out = '{';
    let first = true;
    for (const key of keys) {
      if (typeof key !== 'string' || key === 'constructor' || key === 'toJSON' || key === '__proto__')
        return slow(value);
      if (!Object.prototype.propertyIsEnumerable.call(value, key)) continue;
      const part = valueWriter((value as Record<string, unknown>)[key]);
      if (part === FAIL) return FAIL;
      if (part === UNDEF) continue;
      out += (first ? '' : ',') + JSON.stringify(key) + ':' + part;
      first = false;
    }
    return out + '}';
  };
}

/** `z.unknown()` or `z.any()` with nothing on it: zod hands the value back as it is. */
function passesThrough(schema: z.ZodType): boolean {
  const zod = internals(schema);
  return (
    (zod.def.type === 'unknown' || zod.def.type === 'any') &&
    !zod.traits.has('$ZodCheck') &&
    !(zod.def.checks?.length ?? 0)
  );
}

/**
 * zod 4's strip object: known keys in shape order, unknown keys dropped, absent keys by `in`.
 * With `loose` (the node's zod path), a loose object: after the known keys, every other key
 * `for…in` yields (inherited ones too, `__proto__` never), as zod's handleCatchall copies them.
 * Where `JSON.stringify` of zod's copy would not follow that order or that key (an index-like
 * key goes first) or would call a value's `toJSON` with its key, the node is zod's.
 */
function compileObject(
  shape: Record<string, z.ZodType>,
  stats: CompileStats,
  stack: Set<z.ZodType>,
  loose?: Writer,
): Writer {
  const fields = Object.keys(shape)
    .filter((key) => key !== '__proto__')
    .map((key) => {
      const zod = internals(shape[key]!);
      return {
        key,
        prefix: JSON.stringify(key) + ':',
        write: compile(shape[key]!, stats, stack),
        // As in zod's handlePropertyResult: which absences and failures an optional key forgives.
        absentSkips: zod.optout === 'optional' && zod.optin === 'optional',
        absentForgiven: zod.optin !== undefined && zod.optout === 'optional',
        required: zod.optin === undefined,
      };
    });
  const known = new Set(Object.keys(shape));
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return FAIL;
    const input = value as Record<string, unknown>;
    let out = '{';
    let first = true;
    for (const field of fields) {
      const present = field.key in input;
      if (!present && field.absentSkips) continue;
      const part = field.write(input[field.key]);
      if (part === FAIL) {
        if (!present && field.absentForgiven) continue;
        return FAIL;
      }
      if (!present && field.required) return FAIL;
      if (part === UNDEF) continue;
      out += (first ? '' : ',') + field.prefix + part;
      first = false;
    }
    if (loose !== undefined) {
      for (const key in input) {
        if (known.has(key) || key === '__proto__') continue;
        const item = input[key];
        if (INDEX_KEY.test(key) || hasToJSON(item)) return loose(value);
        const text = JSON.stringify(item);
        if (text === undefined) continue;
        out += (first ? '' : ',') + JSON.stringify(key) + ':' + text;
        first = false;
      }
    }
    return out + '}';
  };
}

const hasToJSON = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';

/**
 * The one-pass writer for a schema: the JSON text, or undefined where zod would refuse the value
 * (the caller then asks zod, for its error). Exported for the differential tests.
 */
export function compileWriter(schema: z.ZodType): {
  write: (value: unknown) => string | undefined;
  stats: CompileStats;
} {
  const stats = { inline: 0, delegated: 0 };
  const writer = compile(schema, stats, new Set());
  return {
    stats,
    write: (value) => {
      const out = writer(value);
      // A top-level undefined has no JSON text; the zod path decides what that means.
      return typeof out === 'string' ? out : undefined;
    },
  };
}

/** fastify's serializer compiler: the one-pass writer, falling back to the zod path when it declines. */
export const responseSerializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const zodSerialize = zodSerializerCompiler(route as Parameters<typeof zodSerializerCompiler>[0]);
  const schema = route.schema as z.ZodType | { properties?: unknown };
  // fastify-type-provider-zod also takes `{ properties: zodSchema }`; those keep the zod path.
  if (!(schema instanceof z.ZodType)) return zodSerialize;
  const { write } = compileWriter(schema);
  return (data: unknown) => write(data) ?? zodSerialize(data);
};
