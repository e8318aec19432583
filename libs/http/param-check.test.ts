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

  it('leaves to zod the schemas it cannot check exactly', () => {
    for (const schema of [
      z.object({ id: z.string().optional() }),
      z.object({ id: z.string().trim() }),
      z.object({ id: z.email() }),
      z.object({ id: z.coerce.string() }),
      z.object({ role: z.enum(['ADMIN', 'READ_ONLY']) }),
      z.object({ id: z.string() }).refine(() => true),
      z.looseObject({ id: z.string() }),
      z.array(z.string()),
    ])
      expect(compileParamCheck(schema)).toBeUndefined();
  });
});
