import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCheckResult, type CheckResultInput } from '#domain';
import { parseCheckResultFast, takesFastPath } from '#pipeline';
import { createResultGenerator } from '../../apps/simulator/src/generate.ts';
import { sampleChecks } from '../simulator/checks.ts';

// The compiled validator must answer exactly what zod answers (accept with the same value, or
// reject with the same message) for every input: on what the simulator produces, and on records
// fuzzed around the contract's edges. It must also actually take the fast path for the simulator's
// output, or it would be a slower copy of zod.

const START = Date.UTC(2025, 2, 1);

function simulated(rounds: number): CheckResultInput[] {
  const checks = sampleChecks('fast-validate');
  const generator = createResultGenerator(checks, 'fast-validate');
  const out: CheckResultInput[] = [];
  for (let round = 0; round < rounds; round++)
    checks.forEach((check, index) => {
      for (const location of check.locations)
        out.push(generator.next({ check: index, location, startedAt: START + round * check.frequency * 60_000 }));
    });
  return out;
}

/** What a producer would put on the wire: the JSON text, parsed back. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function agree(input: unknown): void {
  const slow = parseCheckResult(input);
  const fast = parseCheckResultFast(input);
  expect(fast).toStrictEqual(slow);
  if (fast.ok && slow.ok) expect(JSON.stringify(sorted(fast.value))).toBe(JSON.stringify(sorted(slow.value)));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, sorted(v)]),
    );
  return value;
}

describe('compiled check-result validator against zod', () => {
  const results = simulated(60).map(wire);

  it('agrees on every simulated result of every type, and takes the fast path for them', () => {
    expect(results.length).toBeGreaterThan(3_000);
    for (const result of results) agree(result);
    const fast = results.filter(takesFastPath).length;
    expect(fast / results.length).toBeGreaterThan(0.99);
    expect(new Set(results.filter(takesFastPath).map((r) => (r as CheckResultInput).checkType)).size).toBe(8);
  });

  const base = fc.constantFrom(...results.slice(0, 400));
  const fieldNames = [
    'id',
    'accountId',
    'checkId',
    'checkType',
    'startedAt',
    'runLocation',
    'hasFailures',
    'isDegraded',
    'responseTime',
    'attempts',
    'errorMessage',
    'statusCode',
    'statusText',
    'timings',
    'pages',
    'heartbeat',
    'ssl',
    'assertions',
    'unknownField',
  ];
  // Values near each field's rules: case, offsets, bounds, lone surrogates, long text, wrong types.
  const edges: unknown[] = [
    'API',
    'BROWSER',
    'HEARTBEAT',
    'URL',
    'DNS',
    '2026-01-05T10:00:00.000Z',
    '2026-01-05T10:00:00Z',
    '2026-01-05T12:00:00.000+02:00',
    '1999-12-31T23:59:59.999Z',
    '2100-01-01T00:00:00.000Z',
    // The canonical instant's calendar edges (isoInstant has its own tests in libs/pipeline).
    '2024-02-29T10:00:00.000Z',
    '2026-02-29T10:00:00.000Z',
    '2026-01-05T24:00:00.000Z',
    '0B5A3F0E-1C2D-4E5F-8A9B-0C1D2E3F4A5B',
    '0b5a3f0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
    'bad\uD800text',
    '\u0007',
    'x'.repeat(5000),
    'x'.repeat(300),
    -0,
    0,
    1,
    100,
    999,
    1000,
    86_400_000,
    86_400_001,
    1.5,
    null,
    { status: 'RECEIVED' },
    { daysRemaining: 3, domain: 'example.com' },
    { daysRemaining: 3, domain: 'bad\uDC00' },
    { wait: 1, dns: 2, total: 3 },
    { wait: -1 },
    [{ index: 0, url: 'https://example.com' }],
    [
      { index: 0, url: 'https://a' },
      { index: 0, url: 'https://b' },
    ],
    [{ index: 1, url: 'y'.repeat(3000), LCP: 10, consoleErrors: 2 }],
    // Assertion outcomes: canonical, with defaults left out, and with text zod must cut.
    [{ source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', passed: false, actual: '500' }],
    [{ source: 'STATUS_CODE', comparison: 'EQUALS', passed: true }],
    [
      {
        source: 'JSON_BODY',
        property: '$.a',
        comparison: 'EQUALS',
        target: 'x',
        passed: false,
        actual: 'z'.repeat(300),
      },
    ],
    [
      {
        source: 'TEXT_BODY',
        property: '',
        comparison: 'CONTAINS',
        target: '',
        passed: false,
        actual: '',
        message: 'bad\uDC00',
      },
    ],
  ];
  const edgy = fc.oneof(fc.jsonValue(), fc.constantFrom(...edges));

  it('agrees when any one field of a record of each type takes any edge value', () => {
    const perType = new Map<string, unknown>();
    for (const result of results) perType.set((result as CheckResultInput).checkType, result);
    let checked = 0;
    for (const record of perType.values())
      for (const field of fieldNames)
        for (const value of [...edges, undefined]) {
          const input = { ...(record as Record<string, unknown>) };
          if (value === undefined) delete input[field];
          else input[field] = value;
          agree(wire(input));
          checked++;
        }
    expect(checked).toBeGreaterThan(5_000);
  });

  it('agrees on fuzzed records (fields replaced, removed or added)', () => {
    fc.assert(
      fc.property(
        base,
        fc.array(fc.tuple(fc.constantFrom(...fieldNames), fc.option(edgy, { nil: undefined })), {
          minLength: 1,
          maxLength: 4,
        }),
        (record, edits) => {
          const input = { ...(record as Record<string, unknown>) };
          for (const [field, value] of edits) {
            if (value === undefined) delete input[field];
            else input[field] = value;
          }
          agree(wire(input));
        },
      ),
      { numRuns: 3_000, seed: 16 },
    );
  });

  it('agrees on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => agree(value)),
      { numRuns: 1_000, seed: 16 },
    );
  });
});
