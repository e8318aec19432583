import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may connect to. Everything is allowed except the ranges below:
 * addresses inside the service's own network, or that no public receiver can have.
 */
export type AddressVerdict =
  { allowed: true; address: string } | { allowed: false; address: string; range: string; reason: string };

type Range = [cidr: string, name: string];

// Order matters: the first match names the range, so the single metadata addresses come first.
const IPV4_RANGES: Range[] = [
  ['169.254.169.254/32', 'cloud metadata'],
  ['100.100.100.200/32', 'cloud metadata'],
  ['168.63.129.16/32', 'cloud metadata'],
  ['192.0.0.192/32', 'cloud metadata'],
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

const IPV6_RANGES: Range[] = [
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0:0/96', 'IPv4-translated'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
];

type Parsed = ReturnType<typeof ipaddr.parse>;
const compile = (ranges: Range[]) => ranges.map(([cidr, name]) => ({ cidr, name, network: ipaddr.parseCIDR(cidr) }));
const V4 = compile(IPV4_RANGES);
const V6 = compile(IPV6_RANGES);

/**
 * IPv6 forms that carry an IPv4 address a packet may end up at: IPv4-mapped (::ffff:a.b.c.d),
 * NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::). Each is judged by that IPv4 address,
 * so ::ffff:127.0.0.1 is loopback while 64:ff9b::8.8.8.8 (DNS64 networks) stays usable.
 */
function embeddedIPv4(address: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | undefined {
  const [a = 0, b = 0, c = 0, , , , g = 0, h = 0] = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (address.isIPv4MappedAddress()) return { form: 'IPv4-mapped', v4: address.toIPv4Address() };
  if (address.match(ipaddr.parseCIDR('64:ff9b::/96'))) return { form: 'NAT64', v4: fromWords(g, h) };
  if (a === 0x2002) return { form: '6to4', v4: fromWords(b, c) };
  return undefined;
}

function firstMatch(address: Parsed): { cidr: string; name: string } | undefined {
  const ranges = address.kind() === 'ipv4' ? V4 : V6;
  return ranges.find(({ network }) => network[0].kind() === address.kind() && address.match(network));
}

/** Judges one resolved IP address (IPv4 or IPv6, with or without brackets or a zone). */
export function checkAddress(input: string): AddressVerdict {
  const address = input.replace(/^\[|\]$/g, '');
  let parsed: Parsed;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return { allowed: false, address, range: 'invalid', reason: `${address} is not an IP address` };
  }
  const direct = firstMatch(parsed);
  if (direct)
    return {
      allowed: false,
      address,
      range: direct.cidr,
      reason: `${address} is in the ${direct.name} range ${direct.cidr}`,
    };

  const embedded = parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : undefined;
  const inner = embedded && firstMatch(embedded.v4);
  if (embedded && inner) {
    const v4 = embedded.v4.toString();
    const reason = `${address} is the ${embedded.form} form of ${v4}, which is in the ${inner.name} range ${inner.cidr}`;
    return { allowed: false, address, range: inner.cidr, reason };
  }
  return { allowed: true, address };
}
