import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCheckResult } from '#domain';
import { parseCheckResultFast } from '#pipeline';
import { createResultGenerator } from '../../../apps/simulator/src/generate.ts';
import { sampleChecks } from '../../simulator/checks.ts';

// The check-result parser is the ingestion boundary: any JSON is accepted, or rejected with a
// reason that names the field, and nothing ever throws (a throw would fail a whole batch).

const checks = sampleChecks('properties');
const generator = createResultGenerator(checks, 'properties');
const valid = JSON.parse(
  JSON.stringify(generator.next({ check: 0, location: checks[0]!.locations[0]!, startedAt: Date.UTC(2025, 0, 1) })),
) as Record<string, unknown>;
const parsers = { zod: parseCheckResult, compiled: parseCheckResultFast };

describe.each(Object.entries(parsers))('check-result parser (%s)', (_name, parse) => {
  it('never throws on any JSON value, and a rejection always has a reason', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const result = parse(input);
        if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('a valid record with one field replaced by any JSON is accepted, or rejected naming that field', () => {
    const fields = Object.keys(valid);
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.jsonValue(), (field, value) => {
        const result = parse({ ...valid, [field]: value });
        if (!result.ok) expect(result.message).toMatch(new RegExp(`(^|; )${field}[.\\[:]`));
      }),
      { numRuns: 3000 },
    );
  });

  it('an extra field is rejected by its name; prototype keys change nothing', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom('__proto__', 'constructor', 'prototype')),
        fc.jsonValue(),
        (field, value) => {
          fc.pre(!(field in valid));
          // defineProperty, so "__proto__" is an own key as JSON.parse would make it, not a prototype change.
          const input: object = { ...valid };
          Object.defineProperty(input, field, { value, enumerable: true, configurable: true, writable: true });
          const result = parse(input);
          if (result.ok) expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
          else expect(result.message).toContain(field === '' ? ':' : `${field}: unknown field`);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns: 1000 },
    );
  });
});
