import { describe, expect, it } from 'vitest';
import { hintsAt } from './hints.ts';

const labels = (before: string, variables: string[] = []) => hintsAt(before, variables)?.options.map((o) => o.label);

describe('script hints', () => {
  it('offers the members of the receiver before the dot, replacing what was typed of the name', () => {
    expect(labels('  await test.')).toContain('step');
    expect(labels('  await page.')).toEqual(expect.arrayContaining(['goto', 'getByRole', 'request']));
    expect(labels('  const r = await request.')).toEqual(expect.arrayContaining(['get', 'post']));
    expect(labels('  const r = await page.request.')).toContain('post');
    expect(labels('  expect(response.status()).')).toEqual(expect.arrayContaining(['toBe', 'not']));
    expect(labels('  expect(response.status()).not.')).toContain('toBe');
    expect(labels('  expect.')).toContain('soft');
    expect(labels('  const body = await response.')).toContain('json');
    expect(hintsAt('  await test.st')).toMatchObject({ typed: 2 });
  });

  it('lists the check variables after process.env.', () => {
    expect(labels('const key = process.env.', ['API_KEY', 'HOST'])).toEqual(['API_KEY', 'HOST']);
    expect(hintsAt('process.env.AP', ['API_KEY'])).toMatchObject({ typed: 2 });
  });

  it('offers the globals at the start of a word and nothing after an unknown receiver', () => {
    expect(labels('  exp')).toEqual(expect.arrayContaining(['test', 'expect', 'page', 'request']));
    expect(hintsAt('  foo.')).toBeNull();
    // A member of something else that merely ends in "test" is not Playwright's test.
    expect(hintsAt('  mytest.')).toBeNull();
    expect(hintsAt('  ')).toBeNull();
  });
});
