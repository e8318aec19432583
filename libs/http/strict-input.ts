import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

/**
 * What a client sends must be what the route reads: an object schema that would drop unknown keys
 * (zod's default) refuses them instead, at every depth of a request body or query string.
 * Objects declared loose on purpose (z.looseObject, a catchall) stay open, and so do records,
 * whose keys are free by design (headers maps, settings); their values are still held to their
 * schema. Applied once to every route by installStrictInput, so no route can forget it, and the
 * OpenAPI document, generated from the same schemas, says `additionalProperties: false`.
 */
export function strictInput<T extends z.ZodType>(schema: T): T {
  return convert(schema) as T;
}

/** A query string with nothing declared: any parameter is unknown. */
const noQuery = z.strictObject({});

/**
 * Every route added after this holds its body and query string strictly. Routes hidden from the
 * document (the console's files, /openapi.json, /metrics) read what they like: a deep link of the
 * console carries its own query. A route without a query schema accepts no parameter at all.
 */
export function installStrictInput(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as Record<string, unknown> | undefined;
    if (!schema || schema.hide) return;
    if (schema.body instanceof z.ZodType) schema.body = strictInput(schema.body);
    if (schema.querystring instanceof z.ZodType) schema.querystring = strictInput(schema.querystring);
    else if (schema.querystring === undefined) schema.querystring = noQuery;
  });
}

type Def = Record<string, unknown> & { type: string };

const converted = new WeakMap<z.ZodType, z.ZodType>();
const inProgress = new Set<z.ZodType>();

/** Same instance when nothing inside changes, so shared schemas (and their component ids) stay. */
function convert(schema: z.ZodType): z.ZodType {
  const known = converted.get(schema);
  if (known) return known;
  // A recursive schema reaches itself: point back to the one being built.
  if (inProgress.has(schema)) return z.lazy(() => converted.get(schema)!);
  inProgress.add(schema);
  try {
    const result = rebuild(schema);
    if (result !== schema) keepMetadata(schema, result);
    converted.set(schema, result);
    converted.set(result, result);
    return result;
  } finally {
    inProgress.delete(schema);
  }
}

function rebuild(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as unknown as Def;
  const child = (key: string) => (def[key] === undefined ? undefined : convert(def[key] as z.ZodType));
  const changed = (parts: Record<string, unknown>) =>
    Object.entries(parts).some(([key, value]) => !same(value, def[key]))
      ? schema.clone({ ...def, ...parts } as never)
      : schema;
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const inner = Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, convert(value)]));
      const unchanged = Object.keys(shape).every((key) => inner[key] === shape[key]);
      // Strip mode is the only one that drops keys silently; an explicit catchall is a decision.
      if (def.catchall === undefined) return schema.clone({ ...def, shape: inner, catchall: z.never() } as never);
      return changed({ shape: unchanged ? shape : inner, catchall: child('catchall') });
    }
    case 'array':
      return changed({ element: child('element') });
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
      return changed({ innerType: child('innerType') });
    case 'union':
      return changed({ options: (def.options as z.ZodType[]).map(convert) });
    case 'intersection':
      return changed({ left: child('left'), right: child('right') });
    case 'tuple':
      return changed({ items: (def.items as z.ZodType[]).map(convert), rest: child('rest') });
    case 'record':
      return changed({ valueType: child('valueType') });
    case 'pipe': {
      // A transform's output is the route's own; only what the client sends is held strictly,
      // which for z.preprocess is the schema after the transform.
      const input = def.in as z.ZodType;
      return input._zod.def.type === 'transform' ? changed({ out: child('out') }) : changed({ in: child('in') });
    }
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      return z.lazy(() => convert(getter()));
    }
    default:
      return schema;
  }
}

/**
 * Descriptions, examples and the component id follow the schema into the document. The strict twin
 * takes over the id: zod renders an output object closed either way, so the component reads the
 * same in responses, and requests (its `…Input` rendering, now closed too) share it.
 */
function keepMetadata(from: z.ZodType, to: z.ZodType): void {
  const meta = z.globalRegistry.get(from);
  if (meta) z.globalRegistry.add(to, meta);
}

function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => item === b[i]);
  return a === b;
}
