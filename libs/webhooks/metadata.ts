import ipaddr from 'ipaddr.js';

/**
 * Cloud instance-metadata and credential endpoints. They hand out the host's credentials, so no
 * check, script or alert delivery may reach them, whatever switch lets private targets through.
 */
const METADATA = [
  '169.254.169.254/32', // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean, Hetzner
  '169.254.170.2/32', // AWS ECS task metadata and credentials
  '169.254.170.23/32', // AWS EKS Pod Identity
  '169.254.0.23/32', // Tencent Cloud
  '100.100.100.200/32', // Alibaba Cloud
  '168.63.129.16/32', // Azure wire server
  '192.0.0.192/32', // Oracle Cloud (legacy)
  'fd00:ec2::254/128', // AWS over IPv6
  'fd00:ec2::23/128', // AWS EKS Pod Identity over IPv6
].map((cidr) => ({ cidr, network: ipaddr.parseCIDR(cidr) }));

/** The IPv4 address an IPv6 form carries (mapped, compatible, NAT64, 6to4), if any. */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (parts.slice(0, 6).every((part) => part === 0)) return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  if (address.match(ipaddr.parseCIDR('64:ff9b::/96'))) return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  if (parts[0] === 0x2002) return fromWords(parts[1] ?? 0, parts[2] ?? 0);
  return undefined;
}

/** The metadata range an IP address is in, directly or carried inside an IPv6 form. */
export function metadataRange(input: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(input.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return undefined;
  }
  const candidates = [parsed];
  const inner = parsed.kind() === 'ipv6' ? carriedIPv4(parsed as ipaddr.IPv6) : undefined;
  if (inner) candidates.push(inner);
  for (const candidate of candidates) {
    const hit = METADATA.find(({ network }) => network[0].kind() === candidate.kind() && candidate.match(network));
    if (hit) return hit.cidr;
  }
  return undefined;
}
