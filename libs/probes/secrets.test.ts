import { describe, expect, it } from 'vitest';
import { createScrubber, SCRUBBED, substitute } from './secrets.ts';

describe('variables and secrets', () => {
  it('substitutes {{VAR}} and leaves unknown names as written', () => {
    expect(substitute('https://{{HOST}}/x?t={{ TOKEN }}&u={{UNKNOWN}}', { HOST: 'a.test', TOKEN: 's3' })).toBe(
      'https://a.test/x?t=s3&u={{UNKNOWN}}',
    );
  });

  it('scrubs secrets, including their URL-encoded and JSON-escaped forms', () => {
    const scrub = createScrubber(['p@ss word/"x"', 'short', '']);
    const text = `a p@ss word/"x" b ${encodeURIComponent('p@ss word/"x"')} c ${JSON.stringify('p@ss word/"x"')} short`;
    const out = scrub(text);
    expect(out).not.toContain('p@ss');
    expect(out).not.toContain('short');
    expect(out).not.toContain(encodeURIComponent('p@ss word/"x"'));
    expect(out.split(SCRUBBED).length - 1).toBeGreaterThanOrEqual(4);
  });

  it('leaves text alone without secrets', () => {
    expect(createScrubber([])('nothing to hide')).toBe('nothing to hide');
  });
});
