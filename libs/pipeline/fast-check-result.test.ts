import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoInstant } from './fast-check-result.ts';

/** What isoInstant stands in for: the instant, when the text is exactly how toISOString writes it. */
function byDate(text: string): number {
  const ms = Date.parse(text);
  return Number.isFinite(ms) && new Date(ms).toISOString() === text ? ms : Number.NaN;
}

describe('isoInstant', () => {
  it('agrees with Date on calendar and form edges', () => {
    const edges = [
      '2026-01-05T10:00:00.000Z',
      '2024-02-29T10:00:00.000Z',
      '2026-02-29T10:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2100-02-29T00:00:00.000Z',
      '2026-04-31T10:00:00.000Z',
      '2026-12-31T23:59:59.999Z',
      '2026-13-05T10:00:00.000Z',
      '2026-00-05T10:00:00.000Z',
      '2026-01-00T10:00:00.000Z',
      '2026-01-05T24:00:00.000Z',
      '2026-01-05T23:60:00.000Z',
      '2026-01-05T23:59:60.000Z',
      '2026-01-05T10:00:00Z',
      '2026-01-05T10:00:00.000z',
      '2026-01-05 10:00:00.000Z',
      '2026-01-05T10:00:00,000Z',
      '2026-01-05T10:00:00.-00Z',
      '2026-01-05T12:00:00.000+02:00',
      '+02026-01-05T10:00:00.000Z',
      '',
    ];
    for (const text of edges) expect([text, isoInstant(text)]).toEqual([text, byDate(text)]);
    expect(isoInstant('2024-02-29T10:00:00.000Z')).toBe(Date.UTC(2024, 1, 29, 10));
    expect(isoInstant('2026-02-29T10:00:00.000Z')).toBeNaN();
  });

  it('agrees with Date on every instant from 1970 to 2200, and on those texts with one character changed', () => {
    const instant = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) });
    fc.assert(
      fc.property(instant, fc.nat(23), fc.constantFrom(...'0123456789-T:.Z 9'), (ms, at, char) => {
        const text = new Date(ms).toISOString();
        expect(isoInstant(text)).toBe(ms);
        const changed = text.slice(0, at) + char + text.slice(at + 1);
        expect(isoInstant(changed)).toBe(byDate(changed));
      }),
      { numRuns: 20_000, seed: 29 },
    );
  });
});
