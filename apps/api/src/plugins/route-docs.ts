import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import type { RouteDoc } from '#http';
import type { RouteAccess } from '../access.ts';
import { MAX_CHECK_LOCATIONS } from '../locations.ts';
import { addRequestExamples } from './openapi-examples.ts';

const accountHeader = z
  .string()
  .max(64)
  .optional()
  .describe(
    'The account to act in (an account id). Required when the user behind a user key belongs to several ' +
      'accounts; a service key acts in its own account, and naming another one answers 403.',
  );
const idempotencyHeader = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    'Retries with the same key and body within 24 h answer the first response instead of repeating the ' +
      'write; the same key with another body answers 409.',
  );

/** Documents what the auth, rate-limit and idempotency hooks add to every route, from its config. */
export function describeRoute(route: RouteOptions): RouteDoc {
  const access = route.config?.access as RouteAccess | undefined;
  const doc: RouteDoc & Required<Pick<RouteDoc, 'notes' | 'statuses' | 'headers'>> = {
    notes: [],
    statuses: [],
    headers: {},
  };
  const methods = [route.method].flat();
  if (methods.includes('POST')) {
    doc.headers['idempotency-key'] = idempotencyHeader;
    doc.statuses.push(409);
  }
  if (access === undefined || access === 'public') {
    doc.notes.push('Needs no API key.');
    return { ...doc, security: [] };
  }
  doc.statuses.push(401, 403, 429);
  if ('platform' in access) {
    doc.notes.push(`Needs the platform ${access.platform} key (VIGIL_${access.platform.toUpperCase()}_KEY).`);
  } else if ('agent' in access) {
    doc.notes.push('Needs a private-location key (pl_…); API keys are refused (403).');
    doc.notes.push('Rate-limited per location key (VIGIL_AGENT_RATE_LIMIT_PER_MINUTE).');
    return doc;
  } else if ('anyKey' in access) {
    doc.notes.push('Needs any valid user or service key.');
  } else {
    doc.headers['x-service-account'] = accountHeader;
    doc.notes.push(`Needs a user or service key with role ${access.minRole} or above in the account.`);
  }
  const bucket = route.config?.rateLimitBucket;
  doc.notes.push(
    bucket
      ? `Rate-limited in its own bucket (${bucket}); RateLimit-* headers tell what is left.`
      : 'Rate-limited per account; RateLimit-* headers tell what is left.',
  );
  return doc;
}

/** A private location's slugName (slugNameSchema); runner locations are usually of the same form. */
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const instantPattern =
  '^([0-9]{1,10}|[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z)$';

/**
 * Writes into request schemas the rules the API checks against its own data: a runtimeId must name a
 * runtime of the catalogue that is not removed, and a page's check ids are unique. (URL rules come
 * from the zod schemas themselves, as regexes, so they are exactly what the API applies.)
 */
export function createDocumentPatch(usableRuntimes: string[], publicLocations: readonly string[] = []) {
  return (document: Record<string, unknown>): void => {
    const components = (document.components ?? {}) as { schemas?: Record<string, unknown> };
    const requestSchemas: unknown[] = Object.entries(components.schemas ?? {})
      .filter(([name]) => name.endsWith('Input'))
      .map(([, schema]) => schema);
    type Operation = {
      requestBody?: { content?: Record<string, { schema?: unknown }> };
      parameters?: { in: string; name: string; schema?: Record<string, unknown> }[];
    };
    for (const operations of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>))
      for (const operation of Object.values(operations))
        for (const media of Object.values(operation?.requestBody?.content ?? {})) requestSchemas.push(media.schema);
    const seen = new Set<unknown>();
    const visit = (node: unknown): void => {
      if (typeof node !== 'object' || node === null || seen.has(node)) return;
      seen.add(node);
      if (Array.isArray(node)) return node.forEach(visit);
      type JsonSchema = { [key: string]: unknown; properties?: Record<string, JsonSchema>; items?: JsonSchema };
      const properties = (node as JsonSchema).properties;
      if (properties?.runtimeId) {
        const { anyOf, type: _type, minLength: _min, maxLength: _max, ...rest } = properties.runtimeId;
        const nullable = JSON.stringify(anyOf ?? null).includes('"null"');
        const names = { type: 'string', enum: usableRuntimes };
        properties.runtimeId = {
          ...rest,
          ...(nullable ? { anyOf: [names, { type: 'null' }] } : names),
          description: 'A runtime of GET /v1/runtimes that is not removed; another name answers 400.',
        };
      }
      // No pattern is written for header names or header and query values: a pattern narrower than
      // what the API accepts (checks take any string, webhook values any Handlebars template) makes
      // the document wrong, and one as wide is no pattern at all. A page lists a check once.
      if (properties?.checkIds?.type === 'array') properties.checkIds.uniqueItems = true;
      // A check or group names known locations, each once, at most MAX_CHECK_LOCATIONS (see
      // locations.ts). Private locations' slugs are account data, so the items are no enum: the
      // runner locations are examples, and the pattern is a slug's when every runner location is one.
      if (properties?.locations?.type === 'array' && publicLocations.length > 0)
        properties.locations = {
          ...properties.locations,
          items: {
            type: 'string',
            minLength: 1,
            maxLength: 64,
            ...(publicLocations.every((name) => SLUG.test(name)) ? { pattern: SLUG.source } : {}),
            examples: publicLocations.slice(0, 3),
            description: `A runner location (${publicLocations.join(', ')}) or the slugName of one of the account's private locations (GET /v1/private-locations); another name answers 400.`,
          },
          maxItems: MAX_CHECK_LOCATIONS,
          uniqueItems: true,
        };
      Object.values(node).forEach(visit);
    };
    requestSchemas.forEach(visit);
    // Time bounds in queries: unix seconds or an ISO 8601 UTC instant.
    for (const operations of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>))
      for (const operation of Object.values(operations))
        for (const parameter of operation.parameters ?? [])
          if (parameter.in === 'query' && (parameter.name === 'from' || parameter.name === 'to') && parameter.schema)
            parameter.schema.pattern ??= instantPattern;
    addRequestExamples(document);
  };
}
