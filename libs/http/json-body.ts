import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as fastify parses them, except that an empty one is no body: HTTP clients that set
 * `Content-Type: application/json` on every request (DELETE, bodiless POSTs such as a token
 * rotation) send zero bytes, and that is not a malformed document. A route that needs a body
 * still refuses it, through its schema, with a 400 naming the body.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'ignore' } = app.initialConfig;
  const parse = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parse(request, body as string, done);
  });
}
