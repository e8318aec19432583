import { hash as oneShotHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, RateLimitedError, UnauthorizedError, ValidationError, API_KEY_PREFIX } from '#core';
import { roleAtLeast, type Role } from '#domain';
import { CachedReadModels, type AccountView, type ReadModels } from '#readmodels';
import type { Access, Principal, RouteAccess } from '../access.ts';
import { ACCOUNT_HEADER, createVerdictMemo, rememberedVerdict, type VerdictMemo } from './auth-cached.ts';
import type { RateLimiter, RateLimitResult, RateLimitRule } from './rate-limit.ts';

export { ACCOUNT_HEADER };

export interface AuthDeps {
  readModels: ReadModels;
  /** sha256 of the platform admin key, from config or from the state store; null when none exists. */
  adminKeyHash: () => Promise<string | null>;
  ingestKeyHash: string | null;
  rateLimiter: RateLimiter;
  defaultLimitPerMinute: number;
  /** Per-bucket limits per minute, e.g. multistep analytics: 30. */
  bucketLimits: Record<string, number>;
}

/**
 * One hook authenticates every request whose route declares `config.access`: it resolves the key
 * to a principal, the account header to an account and role, checks the route's minimum role,
 * then counts the request against the account's rate limit.
 *
 * It is a route hook, added only to routes that need it, and it takes a callback: when the read
 * cache holds the key, user and account (and the rate-limit lease holds a request) it decides
 * synchronously, with no promise or microtask (cachedVerdict below). Anything else (a miss, an
 * expired entry, a gap in invalidation, any refusal, a platform route) takes the async path,
 * which is the one that existed before and produces every error.
 */
export function installAuth(app: FastifyInstance, deps: AuthDeps): void {
  const platformKeys = createPlatformKeys(deps);
  app.decorateRequest('access', null);
  app.decorateRequest('principal', null);
  const cache = deps.readModels instanceof CachedReadModels ? deps.readModels : null;

  const hook = (
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
    route: RouteAuth,
  ): void => {
    const verdict = cache
      ? rememberedVerdict(request, route.required, cache, platformKeys, route.accountHeader, route.memo)
      : undefined;
    if (verdict === undefined) {
      authorize(request, reply, route, deps, platformKeys).then(() => done(), done);
      return;
    }
    request.principal = verdict.principal;
    request.access = verdict.access;
    let counted: RateLimitResult | undefined;
    try {
      counted = deps.rateLimiter.now(verdict.scope, route.rule);
    } catch (error) {
      return done(error as Error);
    }
    if (counted === undefined) {
      limit(reply, deps, verdict.scope, route.rule).then(() => done(), done);
      return;
    }
    setHeaders(reply, counted);
    done();
  };

  app.addHook('onRoute', (route) => {
    const required: RouteAccess | undefined = route.config?.access;
    // Agent routes take only private-location keys, which they authenticate and rate-limit themselves.
    if (required === undefined || required === 'public' || 'agent' in required) return;
    // What the route asks is read from its config at its first request, then kept: a later onRoute
    // hook (the Checkly scope's account header) may still change the config after this one ran, and
    // request.routeOptions builds a new object on every read.
    let auth: RouteAuth | undefined;
    const routeHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void =>
      hook(request, reply, done, (auth ??= routeAuth(request, deps)));
    route.onRequest = [...[route.onRequest ?? []].flat(), routeHook] as typeof route.onRequest;
  });
}

/** A route's access rule, the header that names its account, and its rate-limit rule. */
interface RouteAuth {
  required: Exclude<RouteAccess, 'public' | { agent: true }>;
  accountHeader: string;
  rule: RateLimitRule;
  /** This route's remembered verdicts (auth-cached.ts). */
  memo: VerdictMemo;
}

function routeAuth(request: FastifyRequest, deps: AuthDeps): RouteAuth {
  const config = request.routeOptions.config;
  const bucket = config?.rateLimitBucket ?? 'default';
  return {
    // Only added to routes that need it (onRoute above).
    required: config?.access as RouteAuth['required'],
    accountHeader: config?.accountHeader ?? ACCOUNT_HEADER,
    rule: { bucket, limit: deps.bucketLimits[bucket] ?? deps.defaultLimitPerMinute, windowSeconds: 60 },
    memo: createVerdictMemo(),
  };
}

/** The async path: every case, reading through the read models (cached or not). */
async function authorize(
  request: FastifyRequest,
  reply: FastifyReply,
  route: RouteAuth,
  deps: AuthDeps,
  platformKeys: PlatformKeys,
): Promise<void> {
  const { required, rule } = route;
  const principal = await authenticate(request, deps, platformKeys);
  request.principal = principal;

  if ('platform' in required && required.orMinRole && (principal.kind === 'user' || principal.kind === 'service')) {
    const access = await resolveAccount(request, principal, deps, route.accountHeader);
    if (!roleAtLeast(access.role, required.orMinRole)) {
      throw new ForbiddenError(`Your role ${access.role} is too low; this needs ${required.orMinRole} or above`);
    }
    request.access = access;
    await limit(reply, deps, access.accountId, rule);
    return;
  }
  if ('platform' in required) {
    const allowed =
      principal.kind === 'platform-admin' || (required.platform === 'ingest' && principal.kind === 'ingest');
    if (!allowed)
      throw new ForbiddenError(
        `This route needs the platform ${required.platform === 'admin' ? 'admin' : 'ingest'} key`,
      );
    await limit(reply, deps, `platform-${principal.kind}`, rule);
    return;
  }
  if (principal.kind === 'platform-admin' || principal.kind === 'ingest') {
    throw new ForbiddenError('Platform keys cannot act inside an account; use a user or service key');
  }
  if ('anyKey' in required) {
    await limit(reply, deps, `key-${principal.keyId}`, rule);
    return;
  }
  const access = await resolveAccount(request, principal, deps, route.accountHeader);
  if (!roleAtLeast(access.role, required.minRole)) {
    throw new ForbiddenError(`Your role ${access.role} is too low; this needs ${required.minRole} or above`);
  }
  request.access = access;
  await limit(reply, deps, access.accountId, rule);
}

/**
 * The platform keys' digests, compared in constant time with the caller's digest (hex, lower
 * case): one hash per request and no per-request conversions (the admin hash may appear later,
 * when stored).
 */
type PlatformKeys = ReturnType<typeof createPlatformKeys>;

function createPlatformKeys(deps: AuthDeps) {
  // The known digests as bytes, made once: a request's digest is converted once and compared with both.
  const ingest = digestBytes(deps.ingestKeyHash?.toLowerCase() ?? null);
  let admin: { given: string; bytes: Buffer | null } | null | undefined;
  // Moves when the admin digest is first read or replaced: what isKnownPlatform answers may change then.
  let version = 0;
  return {
    get version() {
      return version;
    },
    /** Whether the digest is a platform key's as last read; null before the admin hash was first read. */
    isKnownPlatform(digest: string): boolean | null {
      if (admin === undefined) return null;
      const given = Buffer.from(digest, 'latin1');
      // Both compared, not short-circuited, as the async path compares both for a user key.
      const isAdmin = sameBytes(given, admin?.bytes ?? null);
      return sameBytes(given, ingest) || isAdmin;
    },
    async kind(digest: string): Promise<'platform-admin' | 'ingest' | null> {
      const adminHex = await deps.adminKeyHash();
      if (admin === undefined || adminHex !== (admin === null ? null : admin.given)) {
        admin = adminHex === null ? null : { given: adminHex, bytes: digestBytes(adminHex.toLowerCase()) };
        version++;
      }
      const given = Buffer.from(digest, 'latin1');
      if (sameBytes(given, admin?.bytes ?? null)) return 'platform-admin';
      if (sameBytes(given, ingest)) return 'ingest';
      return null;
    },
  };
}

const digestBytes = (hex: string | null): Buffer | null => (hex === null ? null : Buffer.from(hex, 'latin1'));

/** Equal bytes, compared by crypto.timingSafeEqual (the vetted constant-time primitive). */
function sameBytes(given: Buffer, known: Buffer | null): boolean {
  return known !== null && known.length === given.length && timingSafeEqual(given, known);
}

/**
 * Two hex digests equal, compared by crypto.timingSafeEqual (the vetted constant-time primitive)
 * rather than a hand-written loop.
 */
export function sameDigest(digest: string, known: string | null): boolean {
  return sameBytes(Buffer.from(digest, 'latin1'), digestBytes(known));
}

async function authenticate(request: FastifyRequest, deps: AuthDeps, platformKeys: PlatformKeys): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) throw new UnauthorizedError('Missing Authorization header; send "Authorization: Bearer <API key>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new UnauthorizedError('Authorization header must be "Bearer <API key>"');
  // The one-shot hash with hex output is about five times cheaper than a Hash object and a Buffer.
  const hash = oneShotHash('sha256', match[1]);

  const platform = await platformKeys.kind(hash);
  if (platform !== null) return { kind: platform };
  if (!match[1].startsWith(API_KEY_PREFIX)) throw new UnauthorizedError('Unknown API key');

  // The look-up is by hash, so the key itself is never compared byte by byte against stored data.
  const key = await deps.readModels.apiKeyByHash(hash);
  if (!key) throw new UnauthorizedError('Unknown or deleted API key');
  if (key.type === 'service')
    return { kind: 'service', keyId: key.keyId, accountId: String(key.accountId), role: key.role as Role };
  return { kind: 'user', keyId: key.keyId, userId: String(key.userId) };
}

async function resolveAccount(
  request: FastifyRequest,
  principal: Extract<Principal, { kind: 'user' | 'service' }>,
  deps: AuthDeps,
  accountHeader: string,
): Promise<Access> {
  const raw = request.headers[accountHeader];
  const named = Array.isArray(raw) ? raw[0] : raw;
  let accountId: string;
  let role: Role;
  let userId: string | null = null;

  // With the account named, its document is read alongside the user's (one round trip, not two);
  // it is only used once the membership below allows it.
  let early: Promise<AccountView | null> | undefined;
  if (principal.kind === 'service') {
    if (named !== undefined && named !== principal.accountId)
      throw new ForbiddenError('This service key belongs to another account');
    accountId = principal.accountId;
    role = principal.role;
  } else {
    if (named !== undefined) {
      early = deps.readModels.account(named);
      // A refusal below may leave it unawaited; its failure then must not surface as unhandled.
      early.catch(() => undefined);
    }
    const user = await deps.readModels.user(principal.userId);
    const memberships = user ? Object.entries(user.memberships) : [];
    if (named === undefined) {
      if (memberships.length > 1) {
        throw new ValidationError(
          `X-Service-Account header is required: this key's user belongs to ${memberships.length} accounts`,
        );
      }
      if (memberships.length === 0) throw new ForbiddenError('This key has no access to any account');
      [accountId, role] = memberships[0] as [string, Role];
    } else {
      const found = memberships.find(([id]) => id === named);
      if (!found) throw new ForbiddenError('This key has no access to that account');
      [accountId, role] = found as [string, Role];
    }
    userId = principal.userId;
  }

  const account = await (early ?? deps.readModels.account(accountId));
  if (!account) throw new ForbiddenError('This key has no access to that account');
  return { principal, account, accountId, role, userId, actor: userId ?? principal.keyId };
}

async function limit(reply: FastifyReply, deps: AuthDeps, scope: string, rule: RateLimitRule): Promise<void> {
  try {
    setHeaders(reply, await deps.rateLimiter(scope, rule));
  } catch (error) {
    if (error instanceof RateLimitedError)
      setHeaders(reply, (error as RateLimitedError & { rateLimit: RateLimitResult }).rateLimit);
    throw error;
  }
}

function setHeaders(reply: FastifyReply, result: RateLimitResult): void {
  void reply.header('ratelimit-limit', String(result.limit));
  void reply.header('ratelimit-remaining', String(result.remaining));
  void reply.header('ratelimit-reset', String(result.resetSeconds));
}
