import { describe, expect, it } from 'vitest';
import { pageFooter } from './paging.ts';

describe('pageFooter', () => {
  it('names the range, the total and the next page', () => {
    expect(pageFooter(3, { limit: 3 }, '52')).toBe('1-3 of 52, next: --page 2');
    expect(pageFooter(2, { limit: 5, page: 3 }, '12')).toBe('11-12 of 12');
    expect(pageFooter(0, { page: 9 }, '12')).toBe('0 of 12');
    expect(pageFooter(3, { limit: 3 }, null)).toBeUndefined();
  });
});
