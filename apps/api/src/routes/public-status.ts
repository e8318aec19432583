import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import { errorResponses, zodRoutes } from '#http';
import type { PublicStatusPage, PublicStatusPages } from '../console/public-status.ts';
import { renderStatusHtml } from '../console/status-html.ts';

const slugParams = z.object({ slug: z.string().max(64) });
const publicPageSchema = z
  .object({
    title: z.string(),
    description: z.string(),
    state: z.enum(['operational', 'degraded', 'partial_outage', 'major_outage', 'maintenance', 'unknown']),
    updatedAt: z.string(),
    checks: z.array(
      z.object({
        name: z.string(),
        state: z.enum(['passing', 'degraded', 'failing', 'maintenance', 'unknown']),
        uptime90d: z.number().nullable(),
        days: z.array(z.object({ date: z.string(), availability: z.number().nullable() })),
      }),
    ),
    incidents: z.array(
      z.object({ check: z.string(), kind: z.enum(['down', 'degraded', 'recovered']), at: z.string() }),
    ),
  })
  .meta({ id: 'PublicStatusPage' });

/** The public status page, with no key: HTML at /status/{slug}, JSON under /v1/public. Cached ≤ 30 s. */
export function publicStatusRoutes(app: FastifyInstance, pages: PublicStatusPages): void {
  const routes = zodRoutes(app);
  // A page object lives for one cache period: its HTML is rendered, encoded and gzipped once for all its visitors.
  const rendered = new WeakMap<PublicStatusPage, { plain: Buffer; gzip: Buffer }>();
  const html = (page: PublicStatusPage) => {
    let body = rendered.get(page);
    if (!body) {
      const plain = Buffer.from(renderStatusHtml(page));
      body = { plain, gzip: gzipSync(plain) };
      rendered.set(page, body);
    }
    return body;
  };
  const load = async (slug: string) => {
    const page = await pages.get(slug);
    if (!page) throw new NotFoundError(`Status page ${slug} not found`);
    return page;
  };

  routes.get('/v1/public/status-pages/:slug', {
    config: { access: 'public' },
    schema: {
      tags: ['status pages'],
      summary: 'A public status page as JSON (no key; up to 30 s old)',
      params: slugParams,
      response: { 200: publicPageSchema, ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const page = await load(request.params.slug);
      void reply.header('cache-control', 'public, max-age=10');
      return page;
    },
  });

  routes.get('/status/:slug', {
    config: { access: 'public' },
    schema: { hide: true, params: slugParams },
    handler: async (request, reply) => {
      const body = html(await load(request.params.slug));
      const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
      if (gzip) void reply.header('content-encoding', 'gzip');
      return reply
        .header('vary', 'accept-encoding')
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'public, max-age=10')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(gzip ? body.gzip : body.plain);
    },
  });
}
