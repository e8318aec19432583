import { hash as oneShotHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { API_KEY_PREFIX, ForbiddenError, UnauthorizedError } from '#core';
import { PRIVATE_LOCATION_KEY_PREFIX } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { PrivateLocationView } from '#readmodels';
import type { RateLimiter } from '../plugins/rate-limit.ts';
import type { AgentWork } from '../services/agent-work.ts';
import type { PrivateLocationService } from '../services/private-locations.ts';

export interface AgentRouteDeps {
  work: AgentWork;
  locations: PrivateLocationService;
  rateLimiter: RateLimiter;
  /** Requests per minute per agent key. */
  limitPerMinute: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    agentLocation?: PrivateLocationView;
  }
}

const agentHeaders = z.object({
  'x-vigil-agent-id': z.string().min(1).max(64).optional(),
  'x-vigil-agent-version': z.string().min(1).max(64).optional(),
});

const leaseBody = z.object({
  max: z.int().min(0).max(1_000).describe('Runs the agent can take now (its free JOB_CONCURRENCY slots)'),
  waitMs: z.int().min(0).max(25_000).default(20_000).describe('Long-poll: how long to wait for due runs'),
  inFlight: z.int().min(0).max(100_000).default(0).describe('Runs the agent holds now (shown in the location)'),
});

const leaseJson = z.object({
  checkId: z.uuid(),
  accountId: z.string(),
  window: z.int(),
  resultId: z.uuid(),
  location: z.string(),
  leaseEndsAt: z.int(),
  check: z.record(z.string(), z.unknown()),
  variables: z.record(z.string(), z.string()),
  secretValues: z.array(z.string()),
  runtimeId: z.string().optional().describe('Script checks: the runtime to run in'),
});

const runRef = z.object({ checkId: z.uuid(), window: z.int() });
const resultsBody = z.object({
  results: z
    .array(
      runRef.extend({
        result: z
          .record(z.string(), z.unknown())
          .describe('A check result (check-result.v1), validated as ingestion does; its ids are set by the API'),
      }),
    )
    .max(500),
});
const refsBody = z.object({ runs: z.array(runRef).max(1_000) });

const about =
  'For agents of a private location only: authenticate with a location key (pl_…), never with an API key. Each leased run is (check, window); exactly one run per check, location and window holds across agents.';

/** The agent's channel: lease due runs, post results, renew or release leases. */
export function agentRoutes(app: FastifyInstance, deps: AgentRouteDeps): void {
  const routes = zodRoutes(app);
  const tags = ['agent'];
  const config = { access: { agent: true as const } };
  const lookup = cachedKeyLookup(deps.locations);
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    request.agentLocation = await authenticateAgent(request, reply, deps, lookup);
  };

  routes.post('/v1/agent/leases', {
    config,
    onRequest,
    schema: {
      tags,
      summary: 'Lease due runs of the key’s location (long-poll)',
      description: `${about} Answers as soon as runs are due, or after waitMs with an empty list.`,
      headers: agentHeaders,
      body: leaseBody,
      response: { 200: z.object({ leases: z.array(leaseJson) }), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => {
      const location = request.agentLocation!;
      await deps.locations.presence.seen(location.location.id, {
        id: request.headers['x-vigil-agent-id'] ?? 'unnamed',
        version: request.headers['x-vigil-agent-version'] ?? 'unknown',
        inFlight: request.body.inFlight,
      });
      const closed = new AbortController();
      request.raw.once('close', () => closed.abort());
      const leases = await deps.work.lease(location, request.body.max, request.body.waitMs, closed.signal);
      return { leases };
    },
  });

  routes.post('/v1/agent/results', {
    config,
    onRequest,
    schema: {
      tags,
      summary: 'Post results of leased runs; a repeat of the same run counts once',
      description: about,
      headers: agentHeaders,
      body: resultsBody,
      response: { 200: z.object({ accepted: z.int() }), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => deps.work.accept(request.agentLocation!, request.body.results),
  });

  routes.post('/v1/agent/leases/renew', {
    config,
    onRequest,
    schema: {
      tags,
      summary: 'Extend the leases of runs still in progress',
      description: about,
      body: refsBody,
      response: { 200: z.object({ renewed: z.int() }), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => ({ renewed: await deps.work.renew(request.agentLocation!, request.body.runs) }),
  });

  routes.post('/v1/agent/leases/release', {
    config,
    onRequest,
    schema: {
      tags,
      summary: 'Hand leased runs back (an agent stopping): another agent takes them at once',
      description: about,
      body: refsBody,
      response: { 200: z.object({ released: z.int() }), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => ({ released: await deps.work.release(request.agentLocation!, request.body.runs) }),
  });
}

/**
 * How long a key's look-up is reused: a busy agent calls several times a second, and each look-up
 * is two reads and a parse of the location. A revoked key still stops its agent within one poll.
 */
const KEY_CACHE_MS = 1_000;

type KeyLookup = (hash: string) => Promise<{ location: PrivateLocationView; keyId: string } | null>;

function cachedKeyLookup(locations: PrivateLocationService): KeyLookup {
  const cache = new Map<
    string,
    { at: number; found: Promise<{ location: PrivateLocationView; keyId: string } | null> }
  >();
  return (hash) => {
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.at > now - KEY_CACHE_MS) return hit.found;
    if (cache.size >= 10_000) cache.clear();
    const found = locations.reads.byKeyHash(hash);
    cache.set(hash, { at: now, found });
    // A failed read is not kept.
    found.catch(() => cache.delete(hash));
    return found;
  };
}

/** A live location key opens its own location's agent routes and nothing else; an API key opens none of them. */
async function authenticateAgent(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AgentRouteDeps,
  lookup: KeyLookup,
): Promise<PrivateLocationView> {
  const header = request.headers.authorization;
  const key = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  if (!key) throw new UnauthorizedError('Agent routes need "Authorization: Bearer <private-location key>"');
  if (key.startsWith(API_KEY_PREFIX))
    throw new ForbiddenError('Agent routes take a private-location key (pl_…), not an API key');
  if (!key.startsWith(PRIVATE_LOCATION_KEY_PREFIX)) throw new UnauthorizedError('Unknown private-location key');
  const found = await lookup(oneShotHash('sha256', key));
  if (!found) throw new UnauthorizedError('Unknown or revoked private-location key');
  const limit = await deps.rateLimiter(`agent-key-${found.keyId}`, {
    bucket: 'agent',
    limit: deps.limitPerMinute,
    windowSeconds: 60,
  });
  void reply.header('ratelimit-limit', String(limit.limit));
  void reply.header('ratelimit-remaining', String(limit.remaining));
  void reply.header('ratelimit-reset', String(limit.resetSeconds));
  return found.location;
}
