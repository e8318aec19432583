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
  platformKeys: { isKnownPlatform(digest: string): boolean | null },
  accountHeader: string = ACCOUNT_HEADER,
): CachedVerdict | undefined {
  if ('platform' in required) return undefined;
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token?.startsWith(API_KEY_PREFIX)) return undefined;
  const hash = oneShotHash('sha256', token);
  // The async path asks about platform keys first; a platform digest (or none read yet) goes there.
  if (platformKeys.isKnownPlatform(hash) !== false) return undefined;
  const key = cache.peekApiKeyByHash(hash);
  if (key === undefined) return undefined;

  const principal: Principal =
    key.type === 'service'
      ? { kind: 'service', keyId: key.keyId, accountId: String(key.accountId), role: key.role as Role }
      : { kind: 'user', keyId: key.keyId, userId: String(key.userId) };
  if ('anyKey' in required) return { principal, access: null, scope: `key-${principal.keyId}` };

  const raw = request.headers[accountHeader];
  const named = Array.isArray(raw) ? raw[0] : raw;
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
