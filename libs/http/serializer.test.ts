import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileWriter, responseSerializerCompiler } from './serializer.ts';
import { differences, random, sample } from './serializer-fuzz.ts';

const expectSameAsZod = (schema: z.ZodType, values: unknown[]) => expect(differences(schema, values)).toEqual([]);

enum Numeric {
  A = 1,
  B = 2,
}
const schemas: Record<string, z.ZodType> = {
  variable: z.object({ key: z.string(), value: z.string(), locked: z.boolean(), secret: z.boolean() }),
  account: z.object({
    id: z.string(),
    name: z.string().trim().min(1),
    plan: z.enum(['FREE', 'PRO']),
    createdAt: z.iso.datetime(),
    ownerId: z.uuid().nullable(),
    runtimeId: z.string().optional(),
    settings: z.record(z.string(), z.unknown()),
    quota: z.number().int().nonnegative(),
    ratio: z.number(),
  }),
  nested: z.object({
    items: z.array(z.object({ id: z.string(), tags: z.array(z.string()).optional(), score: z.number().nullable() })),
    total: z.number(),
    kind: z.literal(['a', 'b']),
    note: z.string().nullable().optional(),
    extra: z.unknown(),
    any: z.any().optional(),
  }),
  union: z.union([
    z.object({ type: z.literal('http'), url: z.url() }),
    z.object({ type: z.literal('tcp'), port: z.number() }),
    z.string(),
  ]),
  discriminated: z.discriminatedUnion('type', [
    z.object({ type: z.literal('a'), a: z.string() }),
    z.object({ type: z.literal('b'), b: z.number().optional() }),
  ]),
  defaults: z.object({ page: z.number().default(1), flags: z.array(z.boolean()).default([]), tail: z.string() }),
  optionalDefault: z.object({ page: z.number().default(1).optional() }),
  transformed: z.object({ at: z.date(), codec: z.string().transform((s) => s.length) }),
  numericEnum: z.object({ n: z.enum(Numeric) }),
  indexKeys: z.object({ b: z.string(), 1: z.string(), a: z.number() }),
  strict: z.strictObject({ a: z.string() }),
  loose: z.looseObject({ a: z.string() }),
  // The analytics answer's series (apps/api/src/routes/analytics.ts).
  series: z.array(z.looseObject({ data: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))) })),
  looseAny: z.object({ inner: z.looseObject({ n: z.number().optional() }).catchall(z.any()) }),
  looseChecked: z.looseObject({ a: z.string() }).catchall(z.string().min(2)),
  tuple: z.tuple([z.string(), z.number()]),
  nullOnly: z.null(),
  topOptional: z.string().optional(),
  readonly: z.object({ a: z.array(z.string()) }).readonly(),
  arrayMin: z.array(z.string()).min(1),
  record: z.record(z.string(), z.number().int().min(1).max(5)),
  recordOfObjects: z.object({ byKey: z.record(z.string(), z.object({ a: z.string().optional() })) }),
  checkedNumbers: z.object({ p: z.number().positive(), l: z.number().lt(3), g: z.number().gte(-1).int() }),
  refined: z.object({ a: z.number(), b: z.number() }).refine((o) => o.a < o.b),
};

describe('compiled response serializer', () => {
  it('writes plain schemas and defaults inline and hands checks and transforms to zod', () => {
    expect(compileWriter(schemas.variable!).stats).toEqual({ inline: 5, delegated: 0 });
    const account = compileWriter(schemas.account!).stats;
    expect(account.delegated).toBe(3); // trimmed name, datetime, uuid
    expect(compileWriter(schemas.defaults!).stats).toEqual({ inline: 7, delegated: 0 });
    expect(compileWriter(schemas.optionalDefault!).stats.delegated).toBe(1);
  });

  for (const [name, schema] of Object.entries(schemas)) {
    it(`answers as the zod path does, byte for byte: ${name}`, () => {
      const rng = random(name.length * 7919 + 17);
      const values = Array.from({ length: 400 }, () => sample(schema, rng));
      expectSameAsZod(schema, values);
    });
  }

  it('agrees on hand-picked edge cases', () => {
    const variable = schemas.variable!;
    expectSameAsZod(variable, [
      { key: 'K', value: 'v', locked: false, secret: true, extra: 'dropped' },
      { key: 'K', value: 'v', locked: false },
      { key: 'K', value: 'v', locked: false, secret: undefined },
      Object.assign(Object.create({ key: 'from prototype' }), { value: 'v', locked: true, secret: false }),
      [],
      null,
      'string',
    ]);
    expectSameAsZod(z.object({ n: z.number(), s: z.string().optional() }), [
      { n: -0 },
      { n: 1e21, s: undefined },
      { n: NaN },
      { n: Infinity },
      { n: 5e-324, s: '\u2028' },
      { s: 'no n' },
    ]);
    const record = z.record(z.string(), z.unknown());
    expectSameAsZod(record, [
      { b: 1, 2: 'two', a: undefined, 1: null },
      JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
      { constructor: 'c', y: 1 },
      { toJSON: () => 'own toJSON' },
      Object.create(null),
      Object.assign(Object.create(null), { n: 1 }),
      Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false }),
      { [Symbol('s')]: 1, k: 2 },
      new Date(0),
      new Map([['a', 1]]),
      [1, 2],
      Object.create({ inherited: 1 }),
    ]);
    expectSameAsZod(z.object({ n: z.number().int().nonnegative() }), [
      { n: 0 },
      { n: -0 },
      { n: 1.5 },
      { n: 2 ** 53 },
      { n: 2 ** 53 - 1 },
      { n: -1 },
    ]);
    expectSameAsZod(z.array(z.string().optional()), [['a', undefined, 'b'], [], [1]]);
    expectSameAsZod(z.object({ a: z.unknown(), b: z.any() }), [
      {},
      { a: undefined },
      { a: () => 1, b: Symbol('s') },
      { a: { toJSON: () => 'custom' } },
    ]);
  });

  it('writes loose objects inline, other keys after the known ones, and agrees on their edge cases', () => {
    expect(compileWriter(schemas.series!).stats).toEqual({ inline: 8, delegated: 0 });
    expect(compileWriter(schemas.looseChecked!).stats.delegated).toBe(1);
    const loose = z.looseObject({ a: z.string(), b: z.number().optional() });
    const inherited = Object.assign(Object.create({ up: 'inherited', a: 'shadowed?' }), { a: 'own', z: 1 });
    expectSameAsZod(loose, [
      { z: 1, a: 'x', y: 'two' },
      { a: 'x', b: undefined, c: undefined, d: () => 1, e: Symbol('s') },
      { a: 'x', 2: 'index', k: 1 },
      { a: 'x', k: 1, '01': 'not an index' },
      JSON.parse('{"a":"x","__proto__":{"p":1},"k":2}'),
      inherited,
      Object.assign(Object.create(null), { k: [1, { n: null }], a: 'x' }),
      { a: 'x', at: new Date(0), custom: { toJSON: (key: string) => `key ${key}` } },
      { a: 'x', nested: { toJSON: (key: string) => key, deeper: 1 } },
      { a: 'x', s: 'quote " \u2028 é', n: -0, big: 1e21, nan: NaN },
      Object.defineProperty({ a: 'x' }, 'hidden', { value: 2, enumerable: false }),
      { a: 1, k: 'wrong a' },
      { k: 'no a' },
      [],
      null,
    ]);
    const series = schemas.series!;
    expectSameAsZod(series, [
      [{ data: [{ responseTime_avg: 12.5, availability: 99.1, timestamp: null }] }],
      [
        { runLocation: 'eu-west-1', data: [] },
        { runLocation: 'us-east-1', data: [{ a: '1' }] },
      ],
      [{ data: [{ a: true }] }],
      [{ groupKey: undefined, data: [{}] }],
    ]);
  });

  it('falls back to the zod error when the value does not fit', () => {
    const serialize = responseSerializerCompiler({
      schema: schemas.variable,
      method: 'GET',
      url: '/v1/variables/:key',
      httpStatus: '200',
    } as never) as (data: unknown) => string;
    expect(serialize({ key: 'K', value: 'v', locked: false, secret: true, more: 1 })).toBe(
      '{"key":"K","value":"v","locked":false,"secret":true}',
    );
    expect(() => serialize({ key: 'K' })).toThrow(/Response doesn't match the schema/);
  });
});
