import { StringDecoder } from 'node:string_decoder';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PayloadTooLargeError } from '#core';
import { errorResponses, zodRoutes } from '#http';
import { MAX_PING_LOG_BYTES, type HeartbeatService } from '../services/heartbeats.ts';

const params = z.object({ token: z.string().min(1).max(128) });
/**
 * Open on purpose, unlike every other route: cron lines add cache-busters and run ids
 * (`?t=$(date +%s)`, healthchecks.io's `?rid=`), and a ping refused for one would be a missed
 * heartbeat and a false alert.
 */
const anyQuery = z.looseObject({});
const pingResponse = z
  .object({
    checkId: z.string(),
    status: z.string().describe('RECEIVED, EARLY, GRACE or LATE; FAILING for /fail'),
    resultId: z.string(),
  })
  .meta({ id: 'PingResult' });

/**
 * The ping URL of heartbeat checks: no API key, the token is the credential. GET, POST and HEAD
 * all count, so `curl`, `wget` and monitoring hooks of any kind work. A POST may carry any body of
 * any type, or none (`curl -d ''` and `curl -d 'log=…'` send a form): its first 10 KiB are the
 * ping's log, kept with its result, as healthchecks.io does.
 */
export function pingRoutes(app: FastifyInstance, heartbeats: HeartbeatService): void {
  void app.register(async (scope) => {
    readAnyBody(scope);
    const routes = zodRoutes(scope);
    for (const [suffix, failed] of [
      ['', false],
      ['/fail', true],
    ] as const) {
      const summary = failed
        ? 'Report that a heartbeat job failed (no API key: the token is the credential)'
        : 'Ping a heartbeat check (no API key: the token is the credential)';
      // fastify answers HEAD from the GET route (exposeHeadRoutes), so HEAD pings count too.
      for (const method of ['GET', 'POST'] as const) {
        routes.route({
          method,
          url: `/ping/:token${suffix}`,
          config: { access: 'public' },
          schema: {
            tags: ['heartbeats'],
            summary,
            description:
              method === 'POST'
                ? `${summary}. The body may be of any Content-Type, or none; its first ${MAX_PING_LOG_BYTES / 1024} KiB are kept as the ping's log (GET /v1/check-results/{checkId}/{resultId} shows it as logs).`
                : undefined,
            params,
            querystring: anyQuery,
            response: { 200: pingResponse, ...errorResponses(400, 404, 429) },
          },
          handler: async (request) =>
            heartbeats.ping(request.params.token, failed, new Date(), request.body as string | undefined),
        });
      }
    }
  });
}

/**
 * In this scope a body of any Content-Type (or none) is text: the first MAX_PING_LOG_BYTES are
 * kept, cut at a character boundary, and the rest is read and dropped, up to the body limit.
 */
function readAnyBody(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? Infinity;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let total = 0;
    let settled = false;
    const settle = (error: Error | null, body?: string) => {
      if (settled) return;
      settled = true;
      payload.removeAllListeners('data');
      done(error, body);
    };
    payload.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        settle(
          new PayloadTooLargeError(
            `A ping's body is at most ${limit} bytes (its first ${MAX_PING_LOG_BYTES} are kept)`,
          ),
        );
        return;
      }
      if (keptBytes >= MAX_PING_LOG_BYTES) return;
      const part = chunk.subarray(0, MAX_PING_LOG_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    });
    // write(), not end(): a character cut in two at the limit is left out rather than mangled.
    payload.on('end', () => settle(null, new StringDecoder('utf8').write(Buffer.concat(kept))));
    payload.on('error', (error) => settle(error));
  });
}
