import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { compileWriter } from './serializer.ts';

/**
 * Random values for a zod schema, for the serializer's differential tests: mostly valid ones
 * (so the compiled path is exercised), with unknown keys, absent and undefined optionals,
 * awkward strings and numbers, and now and then a wrong value anywhere in the tree (so both paths
 * must refuse it). Not used at run time.
 */

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, unknown>;
  values?: unknown[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A small seeded generator, so a failing case can be replayed from its seed. */
export function random(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Random = ReturnType<typeof random>;

const awkwardStrings = [
  '',
  'plain',
  'quote " and \\ backslash',
  'line\nbreak\ttab',
  '\u0000\u001f',
  'é ü 😀',
  '\ud800',
];
const awkwardNumbers = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123456789.123, Number.MAX_SAFE_INTEGER, 2 ** 60];
/** Values that string formats and other leaves may accept; the generator keeps the ones zod takes. */
const leafPool: unknown[] = [
  '2026-11-23T14:25:05.000Z',
  '2026-11-23T14:25:05Z',
  '2026-11-23',
  '0f8fad5b-d9cb-469f-a165-70867728950e',
  'someone@example.com',
  'https://example.com/path?q=1',
  'vgl_abcdef',
  'UP',
  'DOWN',
  'a',
  ...awkwardStrings,
  ...awkwardNumbers,
  true,
  false,
  null,
  new Date('2026-11-23T00:00:00Z'),
  {},
  [],
];
/** Wrong values of every kind, for the refusals. */
const wrongValues: unknown[] = [
  undefined,
  null,
  'x',
  42,
  NaN,
  Infinity,
  true,
  {},
  [],
  [1, 'a'],
  { key: 1 },
  new Date(NaN),
];

export function sample(schema: z.ZodType, rng: Random, depth = 0): unknown {
  const value = sampleValid(schema, rng, depth);
  return rng.chance(0.03) ? rng.pick(wrongValues) : value;
}

function sampleValid(schema: z.ZodType, rng: Random, depth: number): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      if (leafAccepts(schema, '')) return rng.pick(awkwardStrings);
      return fromPool(schema, rng);
    case 'number':
      if (leafAccepts(schema, 0.5)) return rng.pick(awkwardNumbers);
      return fromPool(schema, rng);
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'enum':
      return rng.pick(Object.values(def.entries ?? {}));
    case 'literal':
      return rng.pick(def.values ?? []);
    case 'nullable':
      return rng.chance(0.3) ? null : sample(def.innerType!, rng, depth + 1);
    case 'optional':
      return rng.chance(0.3) ? undefined : sample(def.innerType!, rng, depth + 1);
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      return sample(def.innerType!, rng, depth + 1);
    case 'array':
      return depth > 6
        ? []
        : Array.from({ length: rng.int(4) }, () =>
            rng.chance(0.02) ? undefined : sample(def.element!, rng, depth + 1),
          );
    case 'union':
      return sample(rng.pick(def.options!), rng, depth + 1);
    case 'record': {
      const out: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--)
        out[rng.pick(['k', '', '1', '10', 'z', 'é', 'constructor', 'toJSON']) + String(rng.int(3))] = sample(
          def.valueType!,
          rng,
          depth + 1,
        );
      return out;
    }
    case 'pipe':
      return sample(def.out!, rng, depth + 1);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        const value = depth > 8 ? undefined : sample(field, rng, depth + 1);
        // An optional may be absent or present as undefined: zod treats the two differently.
        if (value === undefined && rng.chance(0.5)) continue;
        out[key] = value;
      }
      if (rng.chance(0.3)) out[`unknown${rng.int(5)}`] = rng.pick(leafPool);
      return out;
    }
    default:
      return fromPool(schema, rng);
  }
}

function leafAccepts(schema: z.ZodType, value: unknown): boolean {
  try {
    return z.safeEncode(schema, value).success;
  } catch {
    return false;
  }
}

const accepting = new WeakMap<z.ZodType, unknown[]>();
function fromPool(schema: z.ZodType, rng: Random): unknown {
  let accepted = accepting.get(schema);
  if (!accepted) accepting.set(schema, (accepted = leafPool.filter((value) => leafAccepts(schema, value))));
  return accepted.length ? rng.pick(accepted) : rng.pick(leafPool);
}

/** The zod path (what fastify-type-provider-zod does): its JSON text, or undefined when it refuses. */
export function zodPath(schema: z.ZodType, value: unknown): string | undefined {
  const serialize = zodSerializerCompiler({ schema, method: 'GET', url: '/t', httpStatus: '200' } as never);
  try {
    return serialize(value);
  } catch {
    return undefined;
  }
}

/** Where the compiled writer's answer differs from the zod path's (undefined: refused); empty when none. */
export function differences(
  schema: z.ZodType,
  values: unknown[],
): { value: unknown; compiled: string | undefined; zod: string | undefined }[] {
  const { write } = compileWriter(schema);
  const found = [];
  for (const value of values) {
    let compiled: string | undefined;
    try {
      compiled = write(value);
    } catch {
      compiled = undefined;
    }
    const zod = zodPath(schema, value);
    if (compiled !== zod) found.push({ value, compiled, zod });
  }
  return found;
}
