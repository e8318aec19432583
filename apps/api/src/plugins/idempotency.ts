import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { ConflictError, sha256Hex, ValidationError, type SecretBox } from '#core';
import type { StateStore } from '#statestore';
import { runWithSeed } from '../request-context.ts';

const DONE_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a running request's lease outlives its last renewal: a crashed owner frees the key this soon. */
export const IDEMPOTENCY_LEASE_MS = 10_000;
const RENEW_EVERY_MS = IDEMPOTENCY_LEASE_MS / 3;
const HEADER = 'idempotency-key';

/** This process, as the holder of the leases of the requests it runs. */
const instanceId = randomUUID();

interface Stored {
  state: 'pending' | 'done';
  fingerprint: string;
  /** Pending: seeds the ids and command ids of the request, for every run of it (see request-context). */
  seed?: string;
  statusCode?: number;
  contentType?: string;
  /** Sealed: a response may carry a key shown once, which must never rest in plaintext. */
  body?: string;
}

interface Slot {
  key: string;
  /** Held, with a short TTL renewed while the request runs, by the process running it. */
  leaseKey: string;
  fingerprint: string;
  /** Seeds the ids and command ids of the request, so a re-run after a crash repeats the same commands. */
  seed: string;
  renewal: NodeJS.Timeout;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencySlot?: Slot;
  }
}

/** Scope = account and principal: the same key from two accounts, or two callers, never collides. */
function scopeOf(request: FastifyRequest): string {
  const principal = request.principal;
  const who =
    principal === null
      ? `anonymous:${sha256Hex(request.headers.authorization ?? '')}`
      : principal.kind === 'user'
        ? `user:${principal.userId}`
        : principal.kind === 'service'
          ? `service:${principal.keyId}`
          : principal.kind;
  return `${request.access?.accountId ?? 'no-account'}\n${who}`;
}

/**
 * Idempotency-Key on POST: the same key with the same body within 24 h replays the first
 * response; the same key with another body gets 409, as does a retry while the first request is
 * still running. "Still running" is a lease held by the serving process and renewed while the
 * request runs: if that process dies, the lease lapses within IDEMPOTENCY_LEASE_MS, and a retry
 * runs the request again with the same derived ids, so a write the dead process had committed
 * is answered from the event store instead of being made twice.
 */
export function installIdempotency(app: FastifyInstance, stateStore: StateStore, box: SecretBox): void {
  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const given = request.headers[HEADER];
    if (request.method !== 'POST' || given === undefined) return;
    const key = Array.isArray(given) ? given[0] : given;
    // Checked on a dry run too: it answers what the real request would, a refusal included.
    if (!key || key.length > 255) throw new ValidationError('Idempotency-Key: must be 1-255 characters');
    // A dry run changes nothing, so there is nothing to replay: its answer must not take the key.
    if ((request.query as { dryRun?: string } | undefined)?.dryRun === 'true') return;
    const slotKey = `idempotency:${sha256Hex(scopeOf(request))}:${sha256Hex(key)}`;
    const leaseKey = `${slotKey}:lease`;
    const fingerprint = sha256Hex(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`);
    // A fresh seed per logical request: the same key reused after it expired starts afresh.
    const fresh: Stored = { state: 'pending', fingerprint, seed: randomUUID() };
    let stored: Stored | undefined = fresh;
    if (!(await stateStore.setIfAbsent(slotKey, JSON.stringify(fresh), { ttlMs: DONE_TTL_MS }))) {
      const raw = await stateStore.get(slotKey);
      stored = raw === null ? undefined : (JSON.parse(raw) as Stored);
      if (!stored) throw new ConflictError('Idempotency-Key: the first request with this key just ended; retry');
      if (stored.fingerprint !== fingerprint)
        throw new ConflictError('Idempotency-Key was already used with a different request body');
      if (stored.state === 'done') {
        void reply.header('idempotent-replayed', 'true');
        if (stored.contentType) void reply.header('content-type', stored.contentType);
        return reply
          .code(stored.statusCode ?? 200)
          .send(stored.body === undefined ? undefined : box.decrypt(stored.body));
      }
    }
    // Whoever holds the lease runs the request. A held lease means its owner is alive and still
    // running it; a lapsed one means the owner died, and this request takes over with its seed.
    if (!(await stateStore.setIfAbsent(leaseKey, instanceId, { ttlMs: IDEMPOTENCY_LEASE_MS })))
      throw new ConflictError('Idempotency-Key: a request with this key is still in progress; retry shortly');
    const renewal = setInterval(() => {
      stateStore.set(leaseKey, instanceId, { ttlMs: IDEMPOTENCY_LEASE_MS }).catch((error: unknown) => {
        request.log.warn({ err: error }, 'could not renew an idempotency lease');
      });
    }, RENEW_EVERY_MS);
    renewal.unref();
    request.idempotencySlot = { key: slotKey, leaseKey, fingerprint, seed: stored.seed ?? randomUUID(), renewal };
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const slot = request.idempotencySlot;
    if (!slot) return payload;
    request.idempotencySlot = undefined;
    clearInterval(slot.renewal);
    if (reply.statusCode >= 500 || reply.statusCode === 429 || reply.statusCode === 409) {
      // The request did not take effect: free the key so a retry can run.
      await stateStore.write([
        { op: 'del', key: slot.key },
        { op: 'del', key: slot.leaseKey },
      ]);
      return payload;
    }
    const done: Stored = {
      state: 'done',
      fingerprint: slot.fingerprint,
      statusCode: reply.statusCode,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      body: typeof payload === 'string' ? box.encrypt(payload) : undefined,
    };
    await stateStore.write([
      { op: 'set', key: slot.key, value: JSON.stringify(done), ttlMs: DONE_TTL_MS },
      { op: 'del', key: slot.leaseKey },
    ]);
    return payload;
  };

  // Belt and braces: a request that ended without onSend must not keep renewing its lease.
  const onResponse = async (request: FastifyRequest) => {
    if (request.idempotencySlot) clearInterval(request.idempotencySlot.renewal);
  };

  // Only POST routes take Idempotency-Key, so only they carry these hooks: a GET pays for none of
  // them (as global hooks, three async hooks ran on every read). Their handlers run inside the
  // request's seeded scope (ids and command ids derive from it).
  app.addHook('onRoute', (route) => {
    if (route.method !== 'POST' && !(Array.isArray(route.method) && route.method.includes('POST'))) return;
    const handler = route.handler as (...args: Parameters<RouteHandlerMethod>) => unknown;
    route.handler = function seeded(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const slot = request.idempotencySlot;
      return slot
        ? runWithSeed(slot.seed, () => handler.call(this, request, reply))
        : handler.call(this, request, reply);
    } as RouteHandlerMethod;
    // First among the route's own hooks, as the global hooks they were ran before those.
    route.preHandler = [preHandler, ...[route.preHandler ?? []].flat()] as typeof route.preHandler;
    route.onSend = [onSend, ...[route.onSend ?? []].flat()] as typeof route.onSend;
    route.onResponse = [onResponse, ...[route.onResponse ?? []].flat()] as typeof route.onResponse;
  });
}
