import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { checkAddress, metadataRange } from '#webhooks';

/**
 * Check targets are user-controlled, so they get the webhooks' address policy: loopback, private,
 * link-local and metadata addresses are refused unless VIGIL_ALLOW_PRIVATE_TARGETS=true. Cloud
 * metadata services are refused even then: they hand out the host's credentials, and no
 * self-hoster monitors them on purpose.
 */
export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

export const ALLOW_PRIVATE_HINT = 'private targets need VIGIL_ALLOW_PRIVATE_TARGETS=true';

function refusal(host: string, reason: string): AddressRefused {
  const subject = isIP(host) !== 0 ? reason : `${host} resolves to a blocked address: ${reason}`;
  return new AddressRefused(`refused: ${subject} (${ALLOW_PRIVATE_HINT})`);
}

function metadataRefusal(host: string, address: string, cidr: string): AddressRefused {
  const subject = isIP(host) !== 0 ? address : `${host} resolves to ${address}, which`;
  return new AddressRefused(
    `refused: ${subject} is a cloud metadata address (${cidr}); these are never check targets, private ones allowed or not`,
  );
}

/** The verdict on one IP address: undefined when it may be connected to. */
function judge(host: string, address: string, allowPrivate: boolean): AddressRefused | undefined {
  const metadata = metadataRange(address);
  if (metadata) return metadataRefusal(host, address, metadata);
  if (allowPrivate) return undefined;
  const verdict = checkAddress(address);
  return verdict.allowed ? undefined : refusal(host, verdict.reason);
}

/** The policy for a literal address; names are judged at connect time by guardedLookup. */
export function checkLiteral(host: string, allowPrivate: boolean): AddressRefused | undefined {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) return undefined;
  return judge(bare, bare, allowPrivate);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/http/https that refuses a name when any address it resolves to is blocked.
 * It runs as the socket connects, on the addresses it connects to, so DNS rebinding is caught too.
 * `onLookup` reports when resolution finished (the dns phase of the timings).
 */
export function guardedLookup(allowPrivate: boolean, onLookup?: () => void) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      onLookup?.();
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const refused = judge(hostname, address, allowPrivate);
        if (refused) return callback(refused, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** Resolves a host (a name or a literal) to one address under the policy. */
export function resolveGuarded(host: string, allowPrivate: boolean, family: 0 | 4 | 6 = 0): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  const literal = checkLiteral(bare, allowPrivate);
  if (literal) return Promise.reject(literal);
  if (isIP(bare) !== 0) return Promise.resolve(bare);
  return new Promise((resolve, reject) => {
    guardedLookup(allowPrivate)(bare, { family }, (error, address) => {
      if (error) reject(error);
      else resolve(address as string);
    });
  });
}
