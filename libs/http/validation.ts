import { closest, distance } from 'fastest-levenshtein';
import type { FastifySchemaCompiler } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '#core';
import { compileParamCheck } from './param-check.ts';

type Issue = z.core.$ZodRawIssue;

/**
 * Validates one part of a request (body, querystring, params, headers) with its zod schema. A
 * failure is a 400 whose message names each field: `request.url: Invalid URL`; an unknown key
 * names itself and the nearest known one, as Stripe does:
 * `degradedResponseTme: unknown field; did you mean degradedResponseTime?`.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const zodCheck = zodValidatorCompiler(route);
  // Path parameters and the query string (closed, so checked even where a route takes none) are
  // checked on every request of hot reads (GET /v1/variables/{key}): a precompiled check admits
  // what zod admits with the same value, and zod decides the rest.
  const plain = route.httpPart === 'params' || route.httpPart === 'querystring';
  const fast = plain ? compileParamCheck(route.schema) : undefined;
  if (!fast) return zodCheck;
  return (data: unknown) => {
    const value = fast(data);
    return value === undefined ? zodCheck(data) : { value };
  };
};

/** The zod path alone: every part, every outcome (the fast parameter check is held to it by a test). */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const part = httpPart ?? 'request';
  const unknown = part === 'querystring' ? 'unknown query parameter' : 'unknown field';
  // The issue still knows the object that raised it here, hence its keys, and its full path.
  const error = (issue: Issue) => (issue.code === 'unrecognized_keys' ? unknownKeys(issue, unknown) : undefined);
  return (data: unknown) => {
    const result = z.safeParse(schema, data, { error });
    if (result.success) return { value: result.data };
    return { error: new ValidationError(describe(result.error.issues, part)) };
  };
};

function describe(issues: z.core.$ZodIssue[], part: string): string {
  return issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return issue.message;
      return `${dotted(issue.path) || part}: ${issue.message}`;
    })
    .join('; ');
}

function unknownKeys(issue: Issue & { keys?: string[] }, unknown: string): string {
  const known = knownKeys(issue.inst);
  const at = dotted(issue.path ?? []);
  return (issue.keys ?? [])
    .map((key) => {
      const near = nearest(key, known);
      const name = at ? `${at}.${shown(key)}` : shown(key);
      return near === undefined ? `${name}: ${unknown}` : `${name}: ${unknown}; did you mean ${near}?`;
    })
    .join('; ');
}

/** The keys the object (or enumerable record) that raised the issue declares. */
function knownKeys(inst: unknown): string[] {
  const def = (inst as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
  if (def?.type === 'object') return Object.keys(def.shape as object);
  const values = (def?.keyType as { _zod?: { values?: Set<unknown> } } | undefined)?._zod?.values;
  return values ? [...values].map(String) : [];
}

/** The closest known key within a third of its length in edits (at least 2): a typo, not a guess. */
function nearest(key: string, known: string[]): string | undefined {
  if (known.length === 0 || key.length > 256) return undefined;
  const lower = key.toLowerCase();
  const candidate = closest(
    lower,
    known.map((name) => name.toLowerCase()),
  );
  const match = known.find((name) => name.toLowerCase() === candidate)!;
  return distance(lower, candidate) <= Math.max(2, Math.floor(key.length / 3)) ? match : undefined;
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** A key as the client sent it; quoted (and cut) when it is long or holds anything unusual. */
function shown(key: string): string {
  return /^[\w$-]{1,64}$/.test(key) ? key : JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
}
