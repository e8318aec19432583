import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PayloadTooLargeError, UnavailableError } from '#core';
import { errorResponses, zodRoutes } from '#http';
import { classifyResults, parseJson, ParseFailure, type CheckLookup, type ResultSink } from '#pipeline';

export const MAX_RESULTS_PER_REQUEST = 10_000;
export const MAX_INGEST_BYTES = 16 * 1024 * 1024;
/**
 * How long an ingest waits without any acknowledgement from Kafka before it answers 503: a
 * request never hangs on a broker that is down, and the client (or runner) sends it again.
 */
export const INGEST_PUBLISH_DEADLINE_MS = 1_000;

const responseSchema = z
  .object({ accepted: z.number().int(), rejected: z.array(z.object({ index: z.number().int(), message: z.string() })) })
  .meta({ id: 'IngestResult' });

/**
 * POST /v1/check-results: internal services send results with the platform ingest key. The
 * answer (202) comes only once every accepted result is durable.
 */
export function checkResultRoutes(app: FastifyInstance, deps: { lookup: CheckLookup; sink: ResultSink }): void {
  void app.register(async (scope) => {
    // NDJSON: one result per line; a line that is not JSON is rejected by its index, not the whole body.
    scope.addContentTypeParser(
      'application/x-ndjson',
      { parseAs: 'string', bodyLimit: MAX_INGEST_BYTES },
      (_request, body, done) => {
        const lines = String(body)
          .split('\n')
          .filter((line) => line.trim() !== '');
        done(null, lines.map(parseJson));
      },
    );
    zodRoutes(scope).post('/v1/check-results', {
      bodyLimit: MAX_INGEST_BYTES,
      // The platform ingest key sends for every account; an account key, for its own checks only.
      config: { access: { platform: 'ingest', orMinRole: 'READ_WRITE' } },
      schema: {
        tags: ['check results'],
        summary:
          'Ingest check results (JSON array, or NDJSON with Content-Type application/x-ndjson); platform ingest key, or an account key (READ_WRITE) for its own checks',
        description: `At most ${MAX_RESULTS_PER_REQUEST} results or 16 MiB. Each result follows schemas/check-result.v1.json. With an account key, \`accountId\` may be left out (it is the key's account); a result naming another account is rejected.`,
        body: z.array(z.unknown()),
        response: { 202: responseSchema, ...errorResponses(400, 401, 403, 413, 429) },
      },
      handler: async (request, reply) => {
        if (request.body.length > MAX_RESULTS_PER_REQUEST) {
          throw new PayloadTooLargeError(
            `At most ${MAX_RESULTS_PER_REQUEST} results per request; this one has ${request.body.length}`,
          );
        }
        const items = request.access ? ownAccountOnly(request.body, request.access.accountId) : request.body;
        const classified = await classifyResults(items, deps.lookup);
        // Fields only the runner may set: noData is its word about a silent check, and artifacts
        // name files it wrote to the artifact store, which no producer can upload.
        const runnerOnly = (result: (typeof classified.accepted)[number]): string | undefined =>
          result.noData === true
            ? 'noData: set only by the runner, for a check that sent no results'
            : (result.artifacts?.length ?? 0) > 0
              ? 'artifacts: set only by the runner, for the files of a run it made'
              : undefined;
        const accepted = classified.accepted.filter((result) => runnerOnly(result) === undefined);
        if (accepted.length < classified.accepted.length) {
          classified.accepted.forEach((result, i) => {
            const message = runnerOnly(result);
            if (message) classified.rejected.push({ index: classified.acceptedIndexes[i]!, message });
          });
          classified.rejected.sort((a, b) => a.index - b.index);
        }
        // Existence is private: to an account key, another account's check is an unknown check.
        const rejected = request.access
          ? classified.rejected.map((rejection) => {
              const foreign = /^accountId: check (\S+) belongs to another account$/.exec(rejection.message);
              return foreign ? { ...rejection, message: `checkId: unknown check ${foreign[1]}` } : rejection;
            })
          : classified.rejected;
        if (accepted.length > 0) {
          try {
            await deps.sink.accept(accepted, { timeoutMs: INGEST_PUBLISH_DEADLINE_MS });
          } catch (error) {
            // Nothing of the request is acknowledged; sending it again is safe (results are
            // stored once per id), so tell the client when.
            if (error instanceof UnavailableError) void reply.header('retry-after', '1');
            throw error;
          }
        }
        return reply.code(202).send({ accepted: accepted.length, rejected });
      },
    });
  });
}

/**
 * An account key sends for its own account: a missing accountId is filled in, and a result naming
 * another account is rejected by its index (whether that account exists stays private).
 */
function ownAccountOnly(items: readonly unknown[], accountId: string): unknown[] {
  return items.map((item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    const named = (item as { accountId?: unknown }).accountId;
    if (named === undefined) return { ...item, accountId };
    if (named !== accountId) return new ParseFailure(`accountId: this key sends results for account ${accountId} only`);
    return item;
  });
}
