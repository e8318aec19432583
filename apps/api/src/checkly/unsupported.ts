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
  ['/v1/checks/icmp', 'ICMP checks'],
  ['/v1/checks/grpc', 'gRPC checks'],
  ['/v1/checks/traceroute', 'traceroute checks'],
  ['/v1/incidents', 'incidents'],
  ['/v1/reporting', 'reporting'],
  ['/v1/analytics', "Checkly's analytics API"],
  ['/v1/triggers', "trigger URLs; run a check with POST /v1/checks/{id}/trigger on Vigil's own API"],
  [
    '/v1/alert-notifications',
    "Checkly's alert notification log; see GET /v1/alert-channels/{id}/deliveries on Vigil's own API",
  ],
  ['/next/projects', 'project listings and imports (checkly import); checkly deploy and destroy work'],
  ['/next/test-sessions', "test sessions (checkly test, trigger and checks run need Checkly's cloud runners)"],
  ['/next/check-sessions', "check sessions (checkly test, trigger and checks run need Checkly's cloud runners)"],
];

export function unsupportedRoutes(app: FastifyInstance): void {
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
