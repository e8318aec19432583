import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAddress } from '#webhooks';

// Any textual form of a private, loopback, link-local or metadata IPv4 address is refused: dotted,
// decimal, octal, hex, shortened forms, IPv4-mapped and compatible IPv6, NAT64-free IPv6 spellings,
// brackets, zone ids, and whatever a URL parser makes of them before the connect-time check.

const blocked: [base: number, bits: number][] = [
  [0x00000000, 8], // 0.0.0.0/8
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10
  [0x7f000000, 8], // 127/8
  [0xa9fe0000, 16], // 169.254/16
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
];

const privateV4 = fc
  .tuple(fc.constantFrom(...blocked), fc.nat())
  .map(([[base, bits], noise]) => (base | (noise & (2 ** (32 - bits) - 1))) >>> 0);

const octets = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const hex4 = (n: number) => [(n >>> 16).toString(16), (n & 0xffff).toString(16)];

type Form = (n: number) => string;
const v4Forms: Record<string, Form> = {
  dotted: (n) => octets(n).join('.'),
  decimal: (n) => String(n),
  hex: (n) => `0x${n.toString(16)}`,
  'dotted hex': (n) =>
    octets(n)
      .map((o) => `0x${o.toString(16)}`)
      .join('.'),
  'dotted octal': (n) =>
    octets(n)
      .map((o) => `0${o.toString(8)}`)
      .join('.'),
  'three parts': (n) => `${n >>> 24}.${(n >>> 16) & 255}.${n & 0xffff}`,
  'two parts': (n) => `${n >>> 24}.${n & 0xffffff}`,
};
const v6Forms: Record<string, Form> = {
  'IPv4-mapped': (n) => `::ffff:${octets(n).join('.')}`,
  'IPv4-mapped hex': (n) => `::ffff:${hex4(n).join(':')}`,
  'IPv4-mapped long': (n) => `0:0:0:0:0:ffff:${hex4(n).join(':')}`,
  'IPv4-mapped upper': (n) => `::FFFF:${octets(n).join('.')}`,
  bracketed: (n) => `[::ffff:${octets(n).join('.')}]`,
  'with zone': (n) => `::ffff:${octets(n).join('.')}%eth0`,
};

describe('SSRF address policy: every form of a blocked address is refused', () => {
  it.each(Object.entries(v4Forms))('IPv4 %s form, as given and as a URL host', (_name, form) => {
    fc.assert(
      fc.property(privateV4, (n) => {
        const text = form(n);
        expect(checkAddress(text).allowed, text).toBe(false);
        // What the dispatcher sees: the URL parser normalises the host first.
        const host = new URL(`http://${text}/`).hostname;
        expect(checkAddress(host).allowed, `${text} → ${host}`).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it.each(Object.entries(v6Forms))('IPv6 %s form', (_name, form) => {
    fc.assert(
      fc.property(privateV4, (n) => {
        const text = form(n);
        expect(checkAddress(text).allowed, text).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('IPv6 loopback, unspecified, link-local and unique-local in any spelling are refused', () => {
    const v6 = fc.oneof(
      fc.constant('::1'),
      fc.constant('::'),
      fc.constant('0:0:0:0:0:0:0:1'),
      fc
        .tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), fc.nat(0xffff))
        .map(([a, b]) => `${a.toString(16)}::${b.toString(16)}`),
      fc
        .tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), fc.nat(0xffff))
        .map(([a, b]) => `${a.toString(16)}:${b.toString(16)}::1`),
    );
    fc.assert(
      fc.property(v6, fc.boolean(), (text, upper) => {
        const spelled = upper ? text.toUpperCase() : text;
        expect(checkAddress(spelled).allowed, spelled).toBe(false);
        expect(checkAddress(`[${spelled}]`).allowed, spelled).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary text, and only a parsable address is ever allowed', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const verdict = checkAddress(text);
        if (verdict.allowed) expect(verdict.address.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});
