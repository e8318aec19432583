import { isDeepStrictEqual } from 'node:util';
import type { RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema, describedStatuses } from './errors.ts';

/** What an app adds to the generated document for one route, from its own route config. */
export interface RouteDoc {
  /** Sentences appended to the description, e.g. the role a route needs. */
  notes?: string[];
  /** Error statuses the route can answer on top of the common ones (401, 403, 429…). */
  statuses?: number[];
  /** Request headers to document, e.g. the account header. */
  headers?: Record<string, z.ZodType>;
  /** Overrides the document's default security; [] for routes that need no key. */
  security?: Record<string, string[]>[];
}

export type DescribeRoute = (route: RouteOptions) => RouteDoc | undefined;

type Document = Parameters<typeof jsonSchemaTransform>[0];
type Schema = Record<string, unknown>;

/**
 * Completes every operation before zod schemas become JSON Schema: an operationId, a description,
 * and every status the server can send for it, so the document and the server agree.
 */
export function createOpenApiTransform(describeRoute: DescribeRoute = () => undefined) {
  return (document: Document) => {
    const schema = document.schema as Schema | undefined;
    if (!schema || schema.hide) return jsonSchemaTransform(document);
    const route = (document as { route?: RouteOptions }).route;
    const method = String(route?.method ?? 'get');
    const doc = (route && describeRoute(route)) ?? {};
    const statuses = new Set<number>([400, 414, 431, ...(doc.statuses ?? [])]);
    if (document.url !== '/health') statuses.add(503);
    if (schema.params) statuses.add(404);
    if (schema.body) for (const status of [413, 415]) statuses.add(status);

    const response = { ...(schema.response as Record<string, unknown> | undefined) };
    for (const status of statuses) response[status] ??= errorBodySchema.describe(describedStatuses[status] ?? 'Error');

    let headers = schema.headers as z.ZodObject | undefined;
    if (doc.headers) headers = headers ? headers.extend(doc.headers) : z.object(doc.headers);

    const summary = typeof schema.summary === 'string' ? schema.summary : '';
    const description = [
      typeof schema.description === 'string' ? schema.description : `${summary}.`,
      ...(doc.notes ?? []),
    ].join('\n\n');
    return jsonSchemaTransform({
      ...document,
      schema: {
        ...schema,
        operationId: schema.operationId ?? operationId(method, document.url),
        description,
        response,
        ...(headers ? { headers } : {}),
        ...(doc.security ? { security: doc.security } : {}),
      },
    } as Document);
  };
}

/** GET /v1/checks/:id → getChecksById; unique because method and path are. */
export function operationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((part) => part && part !== 'v1')
    .flatMap((part) => (part.startsWith(':') ? ['by', part.slice(1)] : part.split(/[-_.]/)));
  return method.toLowerCase() + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

type ObjectTransform = typeof jsonSchemaTransformObject;

/**
 * The zod provider emits an `…Input` twin of every named schema used in requests; where the twin is
 * identical to the output schema, it is dropped and references point to the one schema.
 */
/** Rules only the app knows (e.g. which runtimes exist), written into the finished document. */
export type PatchDocument = (document: Record<string, unknown>) => void;

export function createOpenApiTransformObject(patch: PatchDocument = () => undefined): ObjectTransform {
  return (input) => {
    const document = openApiTransformObject(input);
    patch(document as Record<string, unknown>);
    return document;
  };
}

export const openApiTransformObject: ObjectTransform = (input) => {
  let document = jsonSchemaTransformObject(input) as { components?: { schemas?: Record<string, unknown> } };
  for (let changed = true; changed;) {
    changed = false;
    const schemas = document.components?.schemas ?? {};
    const text = JSON.stringify(document);
    for (const name of Object.keys(schemas)) {
      const base = name.replace(/Input$/, '');
      if (base === name || !(base in schemas)) continue;
      const twin = JSON.parse(JSON.stringify(schemas[name]).replaceAll(refTo(name), refTo(base)));
      const used = text.split(refTo(name)).length > 1;
      // Output schemas are closed (no extra properties); so are request bodies (strict-input.ts), and
      // an input object left open on purpose still describes the same fields, so openness is no difference.
      if (used && !isDeepStrictEqual(lenient(twin), lenient(schemas[base]))) continue;
      const { [name]: _dropped, ...rest } = schemas;
      document = JSON.parse(
        JSON.stringify({ ...document, components: { ...document.components, schemas: rest } }).replaceAll(
          refTo(name),
          refTo(base),
        ),
      );
      changed = true;
      break;
    }
  }
  return document as ReturnType<ObjectTransform>;
};

function lenient(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lenient);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
      .map(([key, value]) => [key, lenient(value)]),
  );
}

function refTo(name: string): string {
  return `"#/components/schemas/${name}"`;
}
