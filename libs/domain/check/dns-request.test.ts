import { describe, expect, it } from 'vitest';
import { checkInputSchema, checkSchema } from './check-schema.ts';

// Issue 21 item 4: a DNS definition names where its query goes and what it asks, or it is a 400.
const dns = (request: Record<string, unknown>) => checkInputSchema.safeParse({ name: 'd', checkType: 'DNS', request });
const issues = (request: Record<string, unknown>) =>
  (dns(request).error?.issues ?? []).map((issue) => ({ path: issue.path.join('.'), message: issue.message }));

describe('DNS request input rules', () => {
  it('refuses a port without a nameServer, naming the field', () => {
    expect(issues({ query: 'a.test', port: 5353 })).toEqual([
      { path: 'request.port', message: expect.stringContaining('nameServer') },
    ]);
    expect(dns({ query: 'a.test', port: 5353, nameServer: '192.0.2.53' }).success).toBe(true);
    expect(dns({ query: 'a.test' }).success).toBe(true);
  });

  it('refuses query names that are not DNS names', () => {
    for (const query of [
      'a.test\r\nX-Injected: 1',
      'a\u0000b.test',
      'a b.test',
      'a..test',
      `${'a'.repeat(64)}.test`,
      `${'abcdefghi.'.repeat(25)}abcd`, // 254 characters
      'tab\there.test',
      'a/b.test',
    ]) {
      const found = issues({ query });
      expect(found.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(found[0]?.path).toBe('request.query');
    }
  });

  it('accepts the usual forms: underscores, a trailing dot, reverse names, IDN, placeholders', () => {
    for (const query of [
      '_dmarc.example.com',
      '_sip._tcp.example.com',
      'example.com.',
      '4.3.2.1.in-addr.arpa',
      '.',
      'xn--mnchen-3ya.de',
      'münchen.de',
      '{{HOST}}',
      '{{ SUB }}.example.com',
      `${'a'.repeat(63)}.test`,
    ])
      expect(issues({ query }), query).toEqual([]);
  });

  it('stored checks from before the rules still read back', () => {
    const stored = {
      id: '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f',
      name: 'old',
      checkType: 'DNS',
      request: { query: 'a b.test', port: 5353 },
    };
    const parsed = checkSchema.safeParse(stored);
    // Only the new rules may be missing from a stored check; any other issue is not about them.
    const paths = (parsed.error?.issues ?? []).map((issue) => issue.path.join('.'));
    expect(paths.filter((path) => path.startsWith('request'))).toEqual([]);
  });
});
