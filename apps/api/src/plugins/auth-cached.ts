import { hash as oneShotHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { API_KEY_PREFIX } from '#core';
import { roleAtLeast, type Role } from '#domain';
import type { CachedReadModels } from '#readmodels';
import type { Access, Principal, RouteAccess } from '../access.ts';

export interface CachedVerdict {
  principal: Principal;
  /** null on `anyKey` routes, which act on the key alone (as on the async path). */
  access: Access | null;
  /** The rate-limit scope the async path would count this request in. */
  scope: string;
}

/** Where a request names its account; auth.ts re-exports it for the routes. */
export const ACCOUNT_HEADER = 'x-service-account';

/**
 * The auth hook's synchronous path: the verdict the async path would reach, from what the read
 * cache holds now (the same entries, TTL and invalidation, read with `peek…`), or undefined.
 * It only ever admits: every case that would refuse (no header, a bad header, an unknown key, a
 * platform key, a membership or account that does not match, a role too low) and every case it
 * does not cover (platform routes) answers undefined, and the async path decides, with its own
 * messages. A revocation, rotation, role change or removal publishes a change that drops the
 * entries, so the next request misses here and reads the store.
 */
export function cachedVerdict(
  request: FastifyRequest,
  required: Exclude<RouteAccess, 'public' | { agent: true }>,
  cache: CachedReadModels,
  platformKeys: PlatformKeysView,
  accountHeader: string = ACCOUNT_HEADER,
): CachedVerdict | undefined {
  if ('platform' in required) return undefined;
  const hash = digestOf(request);
  if (hash === undefined) return undefined;
  const raw = request.headers[accountHeader];
  const named = Array.isArray(raw) ? raw[0] : raw;
  return derive(hash, named, required, cache, platformKeys);
}

/** What auth.ts's platform keys tell this path. */
export interface PlatformKeysView {
  isKnownPlatform(digest: string): boolean | null;
  /** Moves whenever what isKnownPlatform answers may change (the admin key first read, or replaced). */
  readonly version: number;
}

/** The verdict for a key digest and the account it names, from the entries held now. */
function derive(
  hash: string,
  named: string | undefined,
  required: Exclude<RouteAccess, 'public' | { agent: true } | { platform: unknown }>,
  cache: CachedReadModels,
  platformKeys: PlatformKeysView,
): CachedVerdict | undefined {
  // The async path asks about platform keys first; a platform digest (or none read yet) goes there.
  if (platformKeys.isKnownPlatform(hash) !== false) return undefined;
  const key = cache.peekApiKeyByHash(hash);
  if (key === undefined) return undefined;

  const principal: Principal =
    key.type === 'service'
      ? { kind: 'service', keyId: key.keyId, accountId: String(key.accountId), role: key.role as Role }
      : { kind: 'user', keyId: key.keyId, userId: String(key.userId) };
  if ('anyKey' in required) return { principal, access: null, scope: `key-${principal.keyId}` };

  let accountId: string;
  let role: Role;
  let userId: string | null = null;
  if (principal.kind === 'service') {
    if (named !== undefined && named !== principal.accountId) return undefined;
    accountId = principal.accountId;
    role = principal.role;
  } else {
    const user = cache.peekUser(principal.userId);
    if (user === undefined) return undefined;
    // The membership the async path finds in Object.entries(user.memberships), read without building the list.
    const found = named === undefined ? onlyMembership(user.memberships) : ownMembership(user.memberships, named);
    if (found === undefined) return undefined;
    accountId = found;
    role = user.memberships[found] as Role;
    userId = principal.userId;
  }
  if (!roleAtLeast(role, required.minRole)) return undefined;
  const account = cache.peekAccount(accountId);
  if (account === undefined) return undefined;
  return {
    principal,
    access: { principal, account, accountId, role, userId, actor: userId ?? principal.keyId },
    scope: accountId,
  };
}

/**
 * One route's verdicts, remembered by key digest so a repeated key is not re-derived per request
 * (three cache look-ups, the membership and role checks, two objects). An entry holds only while
 * everything it came from would still be read the same way:
 * - the read cache's epoch is the same (every published change, drop and invalidation gap moves
 *   it, so a revoked key, a removed member, a role change or a deleted account ends it at once,
 *   on every replica the cache itself covers);
 * - none of the key, user and account entries it was derived from has expired (the TTL);
 * - the platform keys read the same (a stored admin key appearing later ends it);
 * - the request names the same account.
 * Keys are remembered by digest only, as everywhere else. The rate limit is still counted per request.
 */
export interface VerdictMemo {
  epoch: number | undefined;
  byDigest: Map<string, Remembered>;
}

interface Remembered {
  named: string | undefined;
  platform: number;
  expiresAt: number;
  verdict: CachedVerdict;
}

/** Past this many digests a route's memo starts over (as the read cache does past its size). */
const MAX_REMEMBERED = 10_000;

export const createVerdictMemo = (): VerdictMemo => ({ epoch: undefined, byDigest: new Map() });

/**
 * cachedVerdict, remembered per key digest in the route's memo (see VerdictMemo): the same
 * verdict, or undefined in the same cases, with the derivation done once per digest and epoch.
 */
export function rememberedVerdict(
  request: FastifyRequest,
  required: Exclude<RouteAccess, 'public' | { agent: true }>,
  cache: CachedReadModels,
  platformKeys: PlatformKeysView,
  accountHeader: string,
  memo: VerdictMemo,
): CachedVerdict | undefined {
  if ('platform' in required) return undefined;
  const epoch = cache.epoch();
  if (epoch === undefined) return undefined;
  if (memo.epoch !== epoch) {
    memo.byDigest.clear();
    memo.epoch = epoch;
  }
  const hash = digestOf(request);
  if (hash === undefined) return undefined;
  const raw = request.headers[accountHeader];
  const named = Array.isArray(raw) ? raw[0] : raw;
  const now = cache.now();
  const held = memo.byDigest.get(hash);
  if (held !== undefined && held.named === named && held.expiresAt > now && held.platform === platformKeys.version) {
    // Counted as one look-up answered from memory (/metrics' hit rate), as the entries it stands for were.
    cache.counts.hits++;
    return held.verdict;
  }

  const platform = platformKeys.version;
  const verdict = derive(hash, named, required, cache, platformKeys);
  if (verdict === undefined) return undefined;
  const { principal, access } = verdict;
  let expiresAt = cache.expiresAt('key', hash);
  if (access !== null) {
    if (access.userId !== null) expiresAt = Math.min(expiresAt, cache.expiresAt('user', access.userId));
    expiresAt = Math.min(expiresAt, cache.expiresAt('account', access.accountId));
  }
  if (memo.byDigest.size >= MAX_REMEMBERED) memo.byDigest.clear();
  // Frozen: one object now answers many requests, and nothing downstream may change it for the next.
  Object.freeze(principal);
  if (access !== null) Object.freeze(access);
  memo.byDigest.set(hash, { named, platform, expiresAt, verdict: Object.freeze(verdict) });
  return verdict;
}

/** The Authorization header's API key as its digest; undefined when it is not a bearer API key. */
function digestOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token?.startsWith(API_KEY_PREFIX)) return undefined;
  return oneShotHash('sha256', token);
}

type Memberships = Record<string, unknown>;

/** The account of a user's only membership; undefined with none or several (the async path decides). */
function onlyMembership(memberships: Memberships): string | undefined {
  let only: string | undefined;
  let count = 0;
  for (const id in memberships) {
    if (!Object.prototype.propertyIsEnumerable.call(memberships, id)) continue;
    if (++count > 1) return undefined;
    only = id;
  }
  return only;
}

/** The named account when the user is a member of it (an own, enumerable entry, as Object.entries lists). */
function ownMembership(memberships: Memberships, named: string): string | undefined {
  return Object.prototype.propertyIsEnumerable.call(memberships, named) ? named : undefined;
}
