import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { variableKeySchema } from '#domain';
import { compileParamCheck } from './param-check.ts';
import { strictInput } from './strict-input.ts';
import { validatorCompiler, zodValidatorCompiler } from './validation.ts';

// The precompiled path-parameter check is held to the zod path: the same inputs give the same
// value, or the same 400 message (which is the whole body), through both.

const compiled = (schema: z.ZodType, httpPart = 'params') => ({
  fast: validatorCompiler({ schema, httpPart, method: 'GET', url: '/x' }),
  zod: zodValidatorCompiler({ schema, httpPart, method: 'GET', url: '/x' }),
});

type Outcome = { value?: unknown; error?: Error };
const shown = (outcome: Outcome) =>
  outcome.error
    ? { error: outcome.error.constructor.name, message: outcome.error.message }
    : { value: outcome.value, keys: Object.keys(outcome.value as object) };

// The API's parameter schemas, closed as strict-input closes them (and one left in strip mode).
const schemas: Record<string, z.ZodType> = {
  variable: z.object({ key: variableKeySchema }),
  id: z.object({ id: z.string().max(64) }),
  two: z.object({ id: z.string().max(64), token: z.string().min(1).max(256) }),
  three: z.object({ id: z.string().max(64), resultId: z.string().max(64), artifactId: z.string().max(64) }),
  uuid: z.object({ id: z.uuid() }),
  exact: z.object({
    code: z
      .string()
      .length(3)
      .regex(/^[a-zA-Z_9]+$/g),
  }),
  // What strict-input gives a route that declares no query string.
  none: z.object({}),
};

let seed = 7;
const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const ALPHABET = ['a', 'Z', '_', '0', '9', '-', '.', ' ', 'é', '😀', '/', '%', '\n', 'f'];
const LENGTHS = [0, 1, 2, 3, 4, 36, 63, 64, 65, 127, 128, 129, 255, 256, 257];

function randomString(): string {
  if (next() < 0.15) return crypto.randomUUID();
  const length = pick(LENGTHS);
  // Often from identifier characters only, so that patterns match often enough to compare values.
  const alphabet = next() < 0.5 ? ['a', 'f', 'Z', '_', '9'] : ALPHABET;
  let text = '';
  while (text.length < length) text += pick(alphabet);
  return text.slice(0, length);
}

function randomInput(keys: string[]): unknown {
  const roll = next();
  if (roll < 0.03) return null;
  if (roll < 0.06) return [randomString()];
  if (roll < 0.09) return randomString();
  const input: Record<string, unknown> = {};
  for (const key of keys) {
    const kind = next();
    if (kind < 0.05) continue;
    input[key] = kind < 0.1 ? 42 : randomString();
  }
  if (next() < 0.08) input.extra = 'x';
  return input;
}

describe('precompiled path-parameter check', () => {
  for (const [name, declared] of Object.entries(schemas)) {
    for (const [mode, part] of [
      ['strict', 'params'],
      ['strip', 'params'],
      ['strict', 'querystring'],
    ] as const) {
      it(`${name} (${mode} ${part}): the same outcome as zod on 3,000 inputs`, () => {
        const schema = mode === 'strict' ? strictInput(declared) : declared;
        expect(compileParamCheck(schema)).toBeDefined();
        const { fast, zod } = compiled(schema, part);
        const keys = Object.keys((declared as z.ZodObject).shape);
        let admitted = 0;
        for (let i = 0; i < 3000; i++) {
          const input = randomInput(keys);
          // fastify's query string parser gives objects without a prototype.
          if (part === 'querystring' && typeof input === 'object' && input !== null && !Array.isArray(input))
            Object.setPrototypeOf(input, null);
          const [a, b] = [fast(input) as Outcome, zod(input) as Outcome];
          expect(shown(a), JSON.stringify(input)).toEqual(shown(b));
          if (!a.error) admitted++;
        }
        // Not a vacuous comparison: both outcomes occur.
        expect(admitted).toBeGreaterThan(10);
        expect(admitted).toBeLessThan(2900);
      });
    }
  }

  it('admits exactly at the edges of each rule', () => {
    const { fast, zod } = compiled(strictInput(schemas.variable!));
    for (const key of ['a', '_', 'A'.repeat(128), 'A'.repeat(129), '', '9a', 'a-b', 'a\n']) {
      expect(shown(fast({ key }) as Outcome), key).toEqual(shown(zod({ key }) as Outcome));
    }
    expect((fast({ key: 'A'.repeat(128) }) as Outcome).value).toEqual({ key: 'A'.repeat(128) });
    expect((fast({ key: 'A'.repeat(129) }) as Outcome).error?.message).toMatch(/key/);
  });

  // The shapes of an analytics query string (apps/api/src/routes/analytics.ts): optional keys,
  // an enum, coerced whole numbers, and keys that may be repeated.
  const list = z.union([z.string(), z.array(z.string())]).optional();
  const query = z.object({
    from: z.string().optional().describe('start'),
    quickRange: z.enum(['last24Hours', 'last7Days']).optional(),
    aggregationInterval: z.coerce.number().int().min(1).max(43_200).optional(),
    metrics: list.describe('metrics'),
    'metrics[]': list,
    page: z.coerce.number().int().min(1).optional(),
    ratio: z.coerce.number().min(0).optional(),
    name: z.string().max(5),
  });
  const queryValues: unknown[] = [
    ...['', '0', '1', '-0', '1.5', '1e3', ' 7 ', '0x10', '43200', '43201', 'abc', 'Infinity', '9007199254740993'],
    ...['last24Hours', 'last7days', 'a,b', 'toolongname'],
    ['a'],
    ['a', 'b'],
    [],
    ['a', 1],
    [undefined],
    // eslint-disable-next-line no-sparse-arrays
    [, 'b'],
    [['a']],
    7,
    null,
    undefined,
    true,
  ];

  for (const strict of [true, false]) {
    it(`query strings (${strict ? 'strict' : 'strip'}): the same outcome as zod on 3,000 inputs`, () => {
      const schema = strict ? strictInput(query) : query;
      expect(compileParamCheck(schema)).toBeDefined();
      const { fast, zod } = compiled(schema, 'querystring');
      const check = compileParamCheck(schema)!;
      const keys = [...Object.keys(query.shape), 'other', 'constructor'];
      let admitted = 0;
      for (let i = 0; i < 3000; i++) {
        const input: Record<string, unknown> = next() < 0.5 ? Object.create(null) : {};
        for (const key of keys)
          if (next() < (key === 'name' ? 0.9 : key === 'other' ? 0.05 : 0.35)) input[key] = pick(queryValues);
        const [a, b] = [fast(input) as Outcome, zod(input) as Outcome];
        expect(shown(a), String(i)).toEqual(shown(b));
        if (check(input) !== undefined) admitted++;
      }
      const edges: Record<string, unknown>[] = [
        { name: 'a', ratio: 'Infinity' },
        { name: 'a', ratio: '-0' },
        { name: 'a', ratio: 'NaN' },
        { name: 'a', page: '1e0', aggregationInterval: '43200' },
        { name: 'a', page: '0' },
        { name: 'a', metrics: ['x', 'y'], 'metrics[]': 'z' },
        { name: 'a', quickRange: 'last7days' },
        { name: 'a', from: undefined },
        { name: 'toolong' },
        {},
      ];
      for (const input of edges) expect(shown(fast(input) as Outcome)).toEqual(shown(zod(input) as Outcome));
      // The precompiled check itself admits often (and zod decides the rest).
      expect(admitted).toBeGreaterThan(50);
      expect(admitted).toBeLessThan(2900);
    });
  }

  it('leaves to zod the schemas it cannot check exactly', () => {
    for (const schema of [
      z.object({ id: z.string().default('x') }),
      z.object({ n: z.coerce.number().multipleOf(2) }),
      z.object({ n: z.number() }),
      z.object({ list: z.union([z.string(), z.array(z.string()).min(1)]) }),
      z.object({ list: z.union([z.array(z.string()), z.string()]) }),
      z.object({ id: z.string().trim() }),
      z.object({ id: z.email() }),
      z.object({ id: z.coerce.string() }),
      z.object({ id: z.string() }).refine(() => true),
      z.looseObject({ id: z.string() }),
      z.array(z.string()),
    ])
      expect(compileParamCheck(schema)).toBeUndefined();
  });
});
