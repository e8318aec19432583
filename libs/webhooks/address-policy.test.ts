import { describe, expect, it } from 'vitest';
import { checkAddress } from './address-policy.ts';

describe('checkAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback range 127.0.0.0/8'],
    ['127.255.255.254', 'loopback range 127.0.0.0/8'],
    ['::1', 'loopback range ::1/128'],
    ['[::1]', 'loopback range ::1/128'],
    ['10.0.0.1', 'private range 10.0.0.0/8'],
    ['172.16.0.1', 'private range 172.16.0.0/12'],
    ['172.31.255.255', 'private range 172.16.0.0/12'],
    ['192.168.1.10', 'private range 192.168.0.0/16'],
    ['169.254.1.1', 'link-local range 169.254.0.0/16'],
    ['fe80::1', 'link-local range fe80::/10'],
    ['fe80::1%eth0', 'link-local range fe80::/10'],
    ['100.64.0.1', 'carrier-grade NAT range 100.64.0.0/10'],
    ['100.127.255.254', 'carrier-grade NAT range 100.64.0.0/10'],
    ['224.0.0.251', 'multicast range 224.0.0.0/4'],
    ['ff02::1', 'multicast range ff00::/8'],
    ['0.0.0.0', 'unspecified range 0.0.0.0/8'],
    ['::', 'unspecified range ::/128'],
    ['255.255.255.255', 'broadcast range 255.255.255.255/32'],
    ['240.0.0.1', 'reserved range 240.0.0.0/4'],
    ['fc00::1', 'unique local range fc00::/7'],
    ['fd12:3456::1', 'unique local range fc00::/7'],
    ['169.254.169.254', 'cloud metadata range 169.254.169.254/32'],
    ['fd00:ec2::254', 'cloud metadata range fd00:ec2::254/128'],
    ['100.100.100.200', 'cloud metadata range 100.100.100.200/32'],
    ['168.63.129.16', 'cloud metadata range 168.63.129.16/32'],
    ['192.0.2.1', 'documentation range 192.0.2.0/24'],
    ['198.18.0.1', 'benchmarking range 198.18.0.0/15'],
    ['2001:db8::1', 'documentation range 2001:db8::/32'],
    ['::7f00:1', 'IPv4-compatible (deprecated) range ::/96'],
  ])('refuses %s (%s)', (address, range) => {
    const verdict = checkAddress(address);
    expect(verdict.allowed).toBe(false);
    expect(!verdict.allowed && verdict.reason).toContain(range);
    expect(!verdict.allowed && verdict.reason).toMatch(
      new RegExp(`^${address.replace(/[[\]]/g, '').replace(/[.*+?^${}()|]/g, '\\$&')} is `),
    );
  });

  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped form of 127.0.0.1, which is in the loopback range 127.0.0.0/8'],
    ['::ffff:7f00:1', 'IPv4-mapped form of 127.0.0.1, which is in the loopback range 127.0.0.0/8'],
    ['[::ffff:7f00:1]', 'IPv4-mapped form of 127.0.0.1, which is in the loopback range 127.0.0.0/8'],
    ['::ffff:10.1.2.3', 'IPv4-mapped form of 10.1.2.3, which is in the private range 10.0.0.0/8'],
    [
      '::ffff:169.254.169.254',
      'IPv4-mapped form of 169.254.169.254, which is in the cloud metadata range 169.254.169.254/32',
    ],
    [
      '::ffff:a9fe:a9fe',
      'IPv4-mapped form of 169.254.169.254, which is in the cloud metadata range 169.254.169.254/32',
    ],
    ['64:ff9b::7f00:1', 'NAT64 form of 127.0.0.1, which is in the loopback range 127.0.0.0/8'],
    ['64:ff9b::192.168.0.1', 'NAT64 form of 192.168.0.1, which is in the private range 192.168.0.0/16'],
    ['2002:0a00:0001::1', '6to4 form of 10.0.0.1, which is in the private range 10.0.0.0/8'],
  ])('refuses %s by the IPv4 address it carries', (address, reason) => {
    const verdict = checkAddress(address);
    expect(verdict.allowed).toBe(false);
    expect(!verdict.allowed && verdict.reason).toContain(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '169.253.255.255',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (address) => {
    expect(checkAddress(address)).toEqual({ allowed: true, address });
  });

  it('refuses what is not an IP address', () => {
    expect(checkAddress('example.com')).toMatchObject({ allowed: false, reason: 'example.com is not an IP address' });
  });
});
