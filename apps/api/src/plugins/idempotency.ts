import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConflictError, sha256Hex, ValidationError, type SecretBox } from '#core';
import type { StateStore } from '#statestore';

const TTL_MS = 24 * 60 * 60 * 1000;
const HEADER = 'idempotency-key';

interface Stored {
  state: 'pending' | 'done';
  fingerprint: string;
  statusCode?: number;
  contentType?: string;
  /** Sealed: a response may carry a key shown once, which must never rest in plaintext. */
  body?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencySlot?: { key: string; fingerprint: string };
  }
}

/**
 * Idempotency-Key on POST: the same key with the same body within 24 h replays the first
 * response; the same key with another body, or while the first is still running, gets 409.
 * Keys are scoped to the caller's credential, so two clients never collide.
 */
export function installIdempotency(app: FastifyInstance, stateStore: StateStore, box: SecretBox): void {
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const given = request.headers[HEADER];
    if (request.method !== 'POST' || given === undefined) return;
    const key = Array.isArray(given) ? given[0] : given;
    if (!key || key.length > 255) throw new ValidationError('Idempotency-Key: must be 1-255 characters');
    const scope = sha256Hex(request.headers.authorization ?? 'anonymous').slice(0, 32);
    const slot = `idempotency:${scope}:${sha256Hex(key)}`;
    const fingerprint = sha256Hex(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`);
    const pending: Stored = { state: 'pending', fingerprint };
    if (await stateStore.setIfAbsent(slot, JSON.stringify(pending), { ttlMs: TTL_MS })) {
      request.idempotencySlot = { key: slot, fingerprint };
      return;
    }
    const raw = await stateStore.get(slot);
    const stored = raw === null ? undefined : (JSON.parse(raw) as Stored);
    if (!stored) throw new ConflictError('Idempotency-Key: the first request with this key just expired; retry');
    if (stored.fingerprint !== fingerprint)
      throw new ConflictError('Idempotency-Key was already used with a different request body');
    if (stored.state === 'pending')
      throw new ConflictError('Idempotency-Key: a request with this key is still in progress');
    void reply.header('idempotent-replayed', 'true');
    if (stored.contentType) void reply.header('content-type', stored.contentType);
    return reply.code(stored.statusCode ?? 200).send(stored.body === undefined ? undefined : box.decrypt(stored.body));
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const slot = request.idempotencySlot;
    if (!slot) return payload;
    request.idempotencySlot = undefined;
    if (reply.statusCode >= 500 || reply.statusCode === 429 || reply.statusCode === 409) {
      // The request did not take effect: free the key so a retry can run.
      await stateStore.del(slot.key);
      return payload;
    }
    const done: Stored = {
      state: 'done',
      fingerprint: slot.fingerprint,
      statusCode: reply.statusCode,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      body: typeof payload === 'string' ? box.encrypt(payload) : undefined,
    };
    await stateStore.set(slot.key, JSON.stringify(done), { ttlMs: TTL_MS });
    return payload;
  });
}
