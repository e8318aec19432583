import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { checkAddress } from '#webhooks';

/**
 * Check targets are user-controlled, so they get the webhooks' address policy: loopback, private,
 * link-local and metadata addresses are refused unless VIGIL_RUNNER_ALLOW_PRIVATE=true.
 */
export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

export const ALLOW_PRIVATE_HINT = 'private targets need VIGIL_RUNNER_ALLOW_PRIVATE=true';

function refusal(host: string, reason: string): AddressRefused {
  const subject = isIP(host) !== 0 ? reason : `${host} resolves to a blocked address: ${reason}`;
  return new AddressRefused(`refused: ${subject} (${ALLOW_PRIVATE_HINT})`);
}

/** The policy for a literal address; names are judged at connect time by guardedLookup. */
export function checkLiteral(host: string, allowPrivate: boolean): AddressRefused | undefined {
  const bare = host.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(bare) === 0) return undefined;
  const verdict = checkAddress(bare);
  return verdict.allowed ? undefined : refusal(bare, verdict.reason);
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
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const verdict = checkAddress(address);
          if (!verdict.allowed) return callback(refusal(hostname, verdict.reason), []);
        }
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
