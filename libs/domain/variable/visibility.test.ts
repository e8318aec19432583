import { describe, expect, it } from 'vitest';
import { roles } from '../roles.ts';
import { MASKED_VALUE, mayRead, visibleValue } from './visibility.ts';

describe('the one masking rule', () => {
  const locked = { value: 'v', locked: true, createdBy: 'u-creator' };

  it('locked: ADMIN and above, and the creator, read it; everyone else sees the mask', () => {
    for (const role of roles) {
      const expected = role === 'ADMIN' || role === 'OWNER' ? 'v' : MASKED_VALUE;
      expect(visibleValue(locked, { role, actor: 'u-other' }), role).toBe(expected);
      expect(visibleValue(locked, { role, actor: 'u-creator' }), role).toBe('v');
    }
  });

  it('a locked group variable has no creator: only ADMIN and above read it', () => {
    const group = { value: 'g', locked: true };
    expect(visibleValue(group, { role: 'READ_WRITE', actor: 'u-1' })).toBe(MASKED_VALUE);
    expect(visibleValue(group, { role: 'ADMIN', actor: 'u-1' })).toBe('g');
  });

  it('a secret never comes out, not even to its creator or an OWNER; an open value always does', () => {
    expect(
      mayRead({ value: 's', locked: false, secret: true, createdBy: 'u-1' }, { role: 'OWNER', actor: 'u-1' }),
    ).toBe(false);
    expect(visibleValue({ value: 'o', locked: false }, { role: 'READ_ONLY', actor: 'x' })).toBe('o');
  });
});
