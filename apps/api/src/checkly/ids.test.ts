import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '#core';
import { findByNumericId, numericId, parseNumericId } from './ids.ts';

describe('numeric ids of the Checkly dialect', () => {
  it('are safe positive integers, the same for the same id whatever its case, distinct across ids', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const numbers = ids.map(numericId);
    for (const n of numbers) {
      expect(Number.isSafeInteger(n)).toBe(true);
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(2 ** 52);
    }
    expect(new Set(numbers).size).toBe(ids.length);
    expect(numericId(ids[5]!.toUpperCase())).toBe(numbers[5]);
    // Fixed by the id alone: a rebuild of the read models (or another replica) derives the same.
    expect(numericId('7d3c1f4e-2b7a-4c1e-9a55-0f1e2d3c4b5a')).toBe(numericId('7d3c1f4e-2b7a-4c1e-9a55-0f1e2d3c4b5a'));
  });

  it('parse from a path (404 when not a number) or a body field (400 naming it)', () => {
    expect(parseNumericId('42', 'Check group')).toBe(42);
    expect(parseNumericId(42, 'Check group', 'groupId')).toBe(42);
    expect(() => parseNumericId('abc', 'Check group')).toThrow(NotFoundError);
    expect(() => parseNumericId('0', 'Check group')).toThrow(NotFoundError);
    expect(() => parseNumericId(-3, 'Check group', 'groupId')).toThrow(/groupId: must be the numeric id/);
    expect(() => parseNumericId(1.5, 'Check group', 'groupId')).toThrow(ValidationError);
  });

  it('find the one resource with that number, and refuse to guess between two', () => {
    const items = [{ id: 'a' }, { id: 'b' }];
    expect(findByNumericId(items, (x) => x.id, numericId('b'))).toEqual({ id: 'b' });
    expect(findByNumericId(items, (x) => x.id, 7)).toBeNull();
    const twins = [{ id: 'a' }, { id: 'A' }];
    expect(() => findByNumericId(twins, (x) => x.id, numericId('a'))).toThrow(/names 2 resources/);
  });
});
