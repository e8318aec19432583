import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '#core';

/** Checkly families Vigil has no model for: a JSON 404 that says so, never a 405 or the console. */
const families: Array<[string, string]> = [
  ['/v1/dashboards', 'dashboards'],
  ['/v1/snippets', 'snippets'],
  ['/v1/client-certificates', 'client certificates'],
  ['/v1/static-ips', 'static IPs'],
  ['/v1/static-ipv4s', 'static IPs'],
  ['/v1/static-ipv6s', 'static IPs'],
  ['/v1/static-ips-by-region', 'static IPs'],
  ['/v1/static-ipv4s-by-region', 'static IPs'],
  ['/v1/static-ipv6s-by-region', 'static IPs'],
  ['/v1/checks/icmp', 'ICMP checks'],
  ['/v1/checks/grpc', 'gRPC checks'],
  ['/v1/checks/traceroute', 'traceroute checks'],
  ['/v1/checks/ssl', 'SSL monitors; an API check with sslCheckDomain watches a certificate'],
  [
    '/v1/status-pages/services',
    "status page services; a Vigil status page lists checks (POST /v1/status-pages on Vigil's own API)",
  ],
  ['/v1/incidents', 'incidents'],
  ['/v1/reporting', 'reporting'],
  ['/v1/analytics', "Checkly's analytics API"],
  [
    '/v1/alert-notifications',
    "Checkly's alert notification log; see GET /v1/alert-channels/{id}/deliveries on Vigil's own API",
  ],
  ['/next/projects', 'project listings and imports (checkly import); checkly deploy and destroy work'],
  ['/next/test-sessions', "test sessions (checkly test, trigger and checks run need Checkly's cloud runners)"],
  ['/next/check-sessions', "check sessions (checkly test, trigger and checks run need Checkly's cloud runners)"],
];

/** Writes to a family the dialect only reads: a JSON 404 that says where to write instead. */
const readOnly: Array<[string, string]> = [
  [
    '/v1/status-pages',
    "writing status pages through Checkly's API (a Vigil status page lists checks, not Checkly's services); use POST /v1/status-pages on Vigil's own API",
  ],
];

export async function unsupportedRoutes(app: FastifyInstance): Promise<void> {
  // Route first, then parse: whatever such a request carries (a code bundle's octet-stream, a
  // body that is not JSON) is never read, so the answer is always the 404 below.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume();
    done(null, undefined);
  });
  for (const [path, family] of readOnly) {
    const answer = async () => {
      throw new NotFoundError(`Vigil does not support ${family}`);
    };
    app.post(path, { config: { access: 'public' } }, answer);
    app.put(`${path}/:id`, { config: { access: 'public' } }, answer);
    app.delete(`${path}/:id`, { config: { access: 'public' } }, answer);
  }
  for (const [path, family] of families) {
    const answer = async () => {
      throw new NotFoundError(`Vigil does not support ${family}`);
    };
    app.all(path, { config: { access: 'public' } }, answer);
    app.all(`${path}/*`, { config: { access: 'public' } }, answer);
  }
  // Anything else under the prefix: a JSON 404 naming the dialect, whatever the method or Accept.
  app.all('/*', { config: { access: 'public' } }, async (request) => {
    throw new NotFoundError(
      `Vigil's Checkly API does not serve ${request.method} ${request.url.split('?')[0]}; see docs/checkly.md for what it supports`,
    );
  });
}
