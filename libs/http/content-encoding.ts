import { Transform, type Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, preParsingHookHandler } from 'fastify';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '#core';

/** The codings a request body may be sent in; x-gzip is gzip's old name (RFC 9110, 8.4.1.3). */
const decoders = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

export const SUPPORTED_ENCODINGS = 'gzip, deflate or br';

/**
 * Decodes request bodies sent with Content-Encoding before any parser reads them. The route's body
 * limit applies to the decoded bytes, so a small compression bomb is a 413 once it has inflated
 * past the limit (and inflating stops there); an encoding not listed above is a 415.
 */
export function installContentDecoding(app: FastifyInstance): void {
  const decodeBody: preParsingHookHandler = (request, _reply, payload, done) => {
    const header = request.headers['content-encoding'];
    if (header === undefined || !hasBody(request.headers)) return done(null, payload);
    const codings = header
      .split(',')
      .map((coding) => coding.trim().toLowerCase())
      .filter((coding) => coding !== '' && coding !== 'identity');
    if (codings.length === 0) return done(null, payload);
    const unknown = codings.find((coding) => !decoders.has(coding));
    if (unknown !== undefined) {
      return done(
        new UnsupportedMediaTypeError(
          `Content-Encoding ${unknown.slice(0, 32)} is not supported; send the body as ${SUPPORTED_ENCODINGS}, or unencoded`,
        ),
      );
    }
    done(null, decode(payload, codings, request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? Infinity));
  };
  // A route hook, only on routes with a method whose body fastify reads: GET, HEAD and TRACE bodies
  // are never parsed, and a hook on every request costs a turn of fastify's hook runner.
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().some((method) => !BODYLESS.has(method))) return;
    route.preParsing = [...[route.preParsing ?? []].flat(), decodeBody] as typeof route.preParsing;
  });
}

/** The methods fastify never parses a body for. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0';
}

/** What fastify reads instead of the raw request: the decoded bytes, at most `limit` of them. */
function decode(raw: Readable, codings: string[], limit: number): Readable {
  let size = 0;
  const decoded = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limit) callback(new PayloadTooLargeError(`The body is larger than ${limit} bytes once decoded`));
      else callback(null, chunk);
    },
  });
  // fastify checks Content-Length against the bytes that arrived, which it reads from here.
  const counted = Object.assign(decoded, { receivedEncodedLength: 0 });
  raw.on('data', (chunk: Buffer) => (counted.receivedEncodedLength += chunk.length));

  // Codings are listed in the order they were applied: the last one is undone first.
  const stages = codings.toReversed().map((coding) => {
    const stage = decoders.get(coding)!();
    stage.on('error', (error) =>
      decoded.destroy(new ValidationError(`The body is not valid ${coding}: ${error.message}`)),
    );
    return stage;
  });
  let source = raw;
  for (const stage of stages) source = source.pipe(stage);
  source.pipe(decoded);
  // Too large or not decodable: stop inflating, and stop reading (fastify closes the connection).
  decoded.on('close', () => {
    raw.unpipe();
    for (const stage of stages) stage.destroy();
  });
  return decoded;
}
