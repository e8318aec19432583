import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { RateLimitedError } from '#core';
import { errorResponses, zodRoutes } from '#http';
import type { EventHub, HubEvent } from '../console/event-hub.ts';
import type { StreamGuard } from '../console/stream-guard.ts';

export interface EventRouteOptions {
  hub: EventHub;
  /** Closes a stream once its principal loses access (key revoked, user removed or demoted). */
  guard: StreamGuard;
  /** Open streams per key (per principal in the account). */
  maxPerKey?: number;
  /** Bytes a client may leave unread before it is dropped. */
  maxBufferedBytes?: number;
  keepAliveMs?: number;
}

/**
 * GET /v1/events: Server-Sent Events of the account's status changes (`status`) and new alerts
 * (`alert`). Authenticated like every route, and re-checked on every change after that (the
 * guard); a stream is keyed by account and principal, the number per key is bounded, and a client
 * that stops reading is dropped rather than buffered.
 */
export function eventRoutes(app: FastifyInstance, options: EventRouteOptions): void {
  const maxPerKey = options.maxPerKey ?? 5;
  const maxBuffered = options.maxBufferedBytes ?? 256 * 1024;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const open = new Map<string, number>();
  const closers = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of [...closers]) close();
  });

  const minRole = 'READ_ONLY';
  zodRoutes(app).get('/v1/events', {
    config: { access: { minRole } },
    schema: {
      tags: ['check status'],
      summary: 'Live status changes and new alerts of the account (text/event-stream: events status and alert)',
      description: `At most ${maxPerKey} open streams per key; a client that falls ${maxBuffered} bytes behind is disconnected.`,
      response: {
        200: {
          description: 'A text/event-stream that stays open: events "status" and "alert", each with a JSON data line',
          // The schema of one event as an SSE parser yields it (OpenAPI 3.2's itemSchema reading).
          content: {
            'text/event-stream': {
              schema: z.looseObject({
                event: z.enum(['status', 'alert']).optional(),
                data: z
                  .string()
                  .describe(
                    'JSON: a check status (as in GET /v1/check-statuses) or an alert (as in GET /v1/check-alerts)',
                  ),
                id: z.string().optional(),
                retry: z.number().int().optional(),
              }),
            },
          },
        },
        ...errorResponses(401, 403, 429),
      },
    },
    handler: async (request, reply) => {
      const access = request.access!;
      const principal = access.principal;
      const who = principal.kind === 'user' || principal.kind === 'service' ? principal.keyId : principal.kind;
      const scope = `${access.accountId}/${who}`;
      const count = open.get(scope) ?? 0;
      if (count >= maxPerKey) {
        throw new RateLimitedError(`At most ${maxPerKey} event streams per key; close one first`, 5);
      }
      open.set(scope, count + 1);
      const raw = reply.raw;
      reply.hijack();
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      let closed = false;
      const send = (text: string) => {
        if (closed) return;
        raw.write(text);
        // write() queues without bound; a reader this far behind is dropped instead.
        if (raw.writableLength > maxBuffered) {
          request.log.info({ scope, buffered: raw.writableLength }, 'slow event-stream client dropped');
          raw.destroy();
        }
      };
      const unsubscribe = options.hub.subscribe(access.accountId, (event: HubEvent) =>
        send(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`),
      );
      const keepAlive = setInterval(() => send(': keep-alive\n\n'), keepAliveMs);
      let unwatch = () => {};
      const close = () => {
        if (closed) return;
        closed = true;
        clearInterval(keepAlive);
        unsubscribe();
        unwatch();
        closers.delete(close);
        const left = (open.get(scope) ?? 1) - 1;
        if (left <= 0) open.delete(scope);
        else open.set(scope, left);
        raw.end();
      };
      closers.add(close);
      raw.on('close', close);
      unwatch = options.guard.watch(access, minRole, close);
      send('retry: 3000\n: connected\n\n');
    },
  });
}
