import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

interface Asset {
  body: Buffer;
  type: string;
  immutable: boolean;
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const url = `/${relative(dir, path).split('\\').join('/')}`;
        // Vite names bundles by content hash under /assets/, so they never change.
        assets.set(url, {
          body: readFileSync(path),
          type: TYPES[extname(path)] ?? 'application/octet-stream',
          immutable: url.startsWith('/assets/'),
        });
      }
    }
  };
  walk(dir);
  return assets;
}

/**
 * Serves the console (apps/web, built by `npm run build:web`) at `/`: a handful of small files,
 * held in memory. Any other GET outside the API answers index.html, so deep links work, but only
 * to a browser (see wantsConsole); an API client gets the JSON 404.
 */
export function webRoutes(app: FastifyInstance, dir: string = WEB_DIST): void {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    app.log.warn({ dir }, 'console not built (npm run build:web); / will answer 404');
    return;
  }
  const assets = loadAssets(dir);
  const page = assets.get('/index.html')!;
  // blob: images are the run screenshots the console fetched with the session's key (run-artifacts.tsx).
  const csp =
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const apiLike = path.startsWith('/v1/') || path === '/v1' || path.startsWith('/ping/');
    const asset = assets.get(path);
    if (asset) {
      // index.html by its own name is the console too: same policy as every deep link.
      if (asset === page) void reply.header('content-security-policy', csp);
      return reply
        .header('content-type', asset.type)
        .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .send(asset.body);
    }
    if (apiLike || extname(path) !== '' || !wantsConsole(request.headers)) return reply.callNotFound();
    return (
      reply
        .header('content-type', page.type)
        .header('cache-control', 'no-cache')
        // The same path answers JSON to an API client.
        .header('vary', 'accept, authorization')
        .header('content-security-policy', csp)
        .send(page.body)
    );
  });
}

/**
 * A browser navigating: it names text/html in Accept and sends no Authorization. An API client
 * (a key in Authorization, or Accept `application/json` or a bare wildcard, as curl, fetch and
 * axios send) must not read the console's page as data for a path that does not exist.
 */
export function wantsConsole(headers: IncomingHttpHeaders): boolean {
  if (headers.authorization !== undefined) return false;
  return (headers.accept ?? '').split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/html' && type !== 'text/*') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
