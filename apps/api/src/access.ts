import type { Role } from '#domain';
import type { AccountView } from '#readmodels';

export type Principal =
  | { kind: 'platform-admin' }
  | { kind: 'ingest' }
  | { kind: 'user'; keyId: string; userId: string }
  | { kind: 'service'; keyId: string; accountId: string; role: Role };

/** Who is calling, in which account, with which role: set by the auth hook on every account route. */
export interface Access {
  principal: Principal;
  account: AccountView;
  accountId: string;
  role: Role;
  /** The id recorded as the actor of events: the user id for user keys, the key id for service keys. */
  actor: string;
  /** The user behind the request; null for service keys. */
  userId: string | null;
}

/**
 * What a route needs: a platform key, or a role in the selected account, or nothing. A platform
 * route with `orMinRole` also takes an account key with that role, acting in its own account.
 */
export type RouteAccess =
  | { platform: 'admin' | 'ingest'; orMinRole?: Role }
  | { minRole: Role }
  | { anyKey: true }
  /** A private-location key (pl_…), checked by the agent routes themselves (routes/agent.ts). */
  | { agent: true }
  | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** Names the rate-limit bucket; routes without one share the default bucket. */
    rateLimitBucket?: string;
    /** The header naming the account, when not X-Service-Account (Checkly's dialect: X-Checkly-Account). */
    accountHeader?: string;
  }
  interface FastifyRequest {
    access: Access | null;
    principal: Principal | null;
  }
}
