import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AddressRefused, checkLiteral, guardedLookup, resolveGuarded } from './address.ts';

// Cloud metadata services hand out credentials: they stay refused even when private targets are allowed.
const METADATA = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
  'fd00:ec2::254', // AWS over IPv6
  '100.100.100.200', // Alibaba Cloud
  '169.254.170.2', // AWS ECS task metadata and credentials
  '168.63.129.16', // Azure wire server
  '192.0.0.192', // Oracle Cloud (legacy)
  '[fd00:ec2::254]',
  '::ffff:169.254.169.254', // IPv4-mapped form
  '::ffff:a9fe:a9fe',
  '64:ff9b::a9fe:a9fe', // NAT64 form
];

describe('cloud metadata addresses', () => {
  for (const address of METADATA) {
    it(`refuses ${address} as a literal even with allowPrivate`, () => {
      const refused = checkLiteral(address, true);
      expect(refused).toBeInstanceOf(AddressRefused);
      expect(refused?.message).toContain('cloud metadata');
      // The hint to allow private targets would not help here, so it is not given.
      expect(refused?.message).not.toContain('VIGIL_ALLOW_PRIVATE_TARGETS');
    });
  }

  it('still allows other private and loopback literals with allowPrivate', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '169.254.1.1', '::1', 'fd00:ec2::1'])
      expect(checkLiteral(address, true), address).toBeUndefined();
    expect(checkLiteral('127.0.0.1', false)).toBeInstanceOf(AddressRefused);
  });

  const lookup = (name: string, allowPrivate: boolean) =>
    new Promise<{ error: Error | null; addresses: unknown }>((resolve) =>
      guardedLookup(allowPrivate)(name, { all: true }, (error, addresses) => resolve({ error, addresses })),
    );

  it('guardedLookup refuses a name that resolves to a metadata address even with allowPrivate', async () => {
    // getaddrinfo parses the numeric forms itself, as it does for any name given to it.
    for (const name of ['169.254.169.254', '2852039166', '0xa9fea9fe', 'fd00:ec2::254']) {
      const { error } = await lookup(name, true);
      expect(error, name).toBeInstanceOf(AddressRefused);
      expect(error?.message).toContain('cloud metadata');
    }
    const local = await lookup('localhost', true);
    expect(local.error).toBeNull();
    expect((local.addresses as LookupAddress[]).length).toBeGreaterThan(0);
  });

  it('resolveGuarded refuses metadata addresses with allowPrivate', async () => {
    await expect(resolveGuarded('169.254.169.254', true)).rejects.toBeInstanceOf(AddressRefused);
    await expect(resolveGuarded('[fd00:ec2::254]', true)).rejects.toBeInstanceOf(AddressRefused);
    await expect(resolveGuarded('2852039166', true)).rejects.toBeInstanceOf(AddressRefused);
    await expect(resolveGuarded('127.0.0.1', true)).resolves.toBe('127.0.0.1');
  });
});
