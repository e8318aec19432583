import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

export interface ReadinessCheck {
  name: string;
  /** Rejects when not ready; may resolve to details shown beside ok (e.g. a runner's saturation). */
  check: () => Promise<void | Record<string, unknown>>;
}

const readySchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(
    z.string(),
    z.object({ ok: z.boolean(), error: z.string().optional(), details: z.record(z.string(), z.unknown()).optional() }),
  ),
});

/** /health is liveness (the process answers); /ready pings every adapter and names a failing one. */
export function installHealth(app: FastifyInstance, checks: ReadinessCheck[], timeoutMs = 2000): void {
  app.get(
    '/health',
    { schema: { tags: ['operations'], response: { 200: z.object({ status: z.literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    { schema: { tags: ['operations'], response: { 200: readySchema, 503: readySchema } } },
    async (_request, reply) => {
      const results = await Promise.all(
        checks.map(async ({ name, check }) => {
          try {
            const details = await withTimeout(check(), timeoutMs, `${name} did not answer within ${timeoutMs} ms`);
            return [name, details ? { ok: true, details } : { ok: true }] as const;
          } catch (error) {
            return [name, { ok: false, error: error instanceof Error ? error.message : String(error) }] as const;
          }
        }),
      );
      const ready = results.every(([, result]) => result.ok);
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
    },
  );
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
