import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { checkAddress } from './address-policy.ts';
import type { DeliveryResult } from './deliver.ts';
import { metadataRange } from './metadata.ts';

/** Named in every address-policy refusal, so the way to allow a local receiver is in the message. */
export const PRIVATE_HINT = '; set VIGIL_ALLOW_PRIVATE_TARGETS=true to deliver to private addresses';

export const RESPONSE_BODY_LIMIT = 4096;

/**
 * What an ended attempt comes to, on either client: once the status is in it decides, whatever
 * ends the body; before that, the client's own failure does (`failure` is asked only then).
 */
export function attemptResult(
  statusCode: number | undefined,
  chunks: readonly Buffer[],
  started: number,
  requestHeaders: DeliveryResult['requestHeaders'],
  failure: () => Pick<DeliveryResult, 'outcome' | 'error'>,
): DeliveryResult {
  const base = {
    durationMs: Math.round(performance.now() - started),
    responseBody:
      chunks.length === 0
        ? ''
        : new StringDecoder('utf8').write(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT)),
    requestHeaders,
  };
  if (statusCode === undefined) return { ...failure(), ...base };
  if (statusCode <= 399) return { outcome: 'delivered', statusCode, ...base };
  return { outcome: 'failed', statusCode, error: `receiver answered ${statusCode}`, ...base };
}

/** Resolves a host name to every address, like dns.lookup with `all: true`. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** Raised from the connect-time lookup when a resolved address is not allowed. */
export class AddressRefused extends Error {}
export class AttemptTimedOut extends Error {}
export class AttemptAborted extends Error {}

export type ConnectLookup = (hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => void;

/**
 * A lookup for the socket's connect that resolves the name and, when guarded, refuses it if any
 * address is in a blocked range. It runs as the socket connects, on the addresses it will connect
 * to, so a name that re-resolves to a private address (DNS rebinding) is caught too.
 */
export function connectLookup(resolve: Resolver, guarded: boolean): ConnectLookup {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      for (const { address } of addresses) {
        // Guarded, the policy refuses metadata with the rest; open, metadata is still refused.
        const metadata = guarded ? undefined : metadataRange(address);
        if (metadata)
          return callback(
            new AddressRefused(
              `${hostname} resolves to ${address}, a cloud metadata address (${metadata}): never delivered to`,
            ),
          );
        if (!guarded) continue;
        const verdict = checkAddress(address);
        if (!verdict.allowed)
          return callback(
            new AddressRefused(`${hostname} resolves to a blocked address: ${verdict.reason}${PRIVATE_HINT}`),
          );
      }
      const [first] = addresses;
      if (options.all) return callback(null, addresses);
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      callback(null, first.address, first.family);
    });
  };
}

/** The default resolver's lookups, built once per policy. */
export const defaultLookups = {
  strict: connectLookup(dnsLookup as unknown as Resolver, true),
  open: connectLookup(dnsLookup as unknown as Resolver, false),
};

export function describe(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
