import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, zodRoutes } from '#http';
import type { HeartbeatService } from '../services/heartbeats.ts';

const params = z.object({ token: z.string().min(1).max(128) });
const pingResponse = z
  .object({
    checkId: z.string(),
    status: z.string().describe('RECEIVED, EARLY, GRACE or LATE; FAILING for /fail'),
    resultId: z.string(),
  })
  .meta({ id: 'PingResult' });

/**
 * The ping URL of heartbeat checks: no API key, the token is the credential. GET, POST and HEAD
 * all count, so `curl`, `wget` and monitoring hooks of any kind work.
 */
export function pingRoutes(app: FastifyInstance, heartbeats: HeartbeatService): void {
  const routes = zodRoutes(app);
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
          params,
          response: { 200: pingResponse, ...errorResponses(400, 404, 429) },
        },
        handler: async (request) => heartbeats.ping(request.params.token, failed, new Date()),
      });
    }
  }
}
