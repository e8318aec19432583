import { z } from 'zod';
import { ValidationError } from '#core';

/**
 * Parses command input with a zod schema and turns the first issue into a ValidationError whose
 * message starts with the field path, so the API's 400 names the field to fix.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: fieldPath(prefix, issue.path),
    message: issue.message,
  }));
  const first = issues[0];
  const message =
    first === undefined ? 'invalid input' : first.path === '' ? first.message : `${first.path}: ${first.message}`;
  throw new ValidationError(message, { details: { issues } });
}

function fieldPath(prefix: string | undefined, path: readonly PropertyKey[]): string {
  const parts = path.map((part) => (typeof part === 'number' ? `[${part}]` : String(part)));
  const joined = parts.reduce((acc, part) => (part.startsWith('[') || acc === '' ? acc + part : `${acc}.${part}`), '');
  if (prefix === undefined || prefix === '') return joined;
  if (joined === '') return prefix;
  return joined.startsWith('[') ? prefix + joined : `${prefix}.${joined}`;
}

const encoder = new TextEncoder();

/** Limits are stated in UTF-8 bytes, not UTF-16 code units, because that is what gets stored. */
export function utf8Bytes(value: string): number {
  return encoder.encode(value).length;
}

/** Timestamps inside events: ISO 8601 as produced by Date.prototype.toISOString. */
export const timestampSchema = z.iso.datetime({ offset: true });

/** Opaque identifiers minted by the application (account ids, user ids, actors). */
export const idSchema = z.string().min(1).max(255);

export const nameSchema = z.string().trim().min(1).max(255);

/**
 * An email address: zod's email rule, written as a pattern and not as `format: email`. OpenAPI
 * then states exactly the rule the server applies; a client's own idea of the email format (one
 * allows quoted local parts, another refuses a label ending in a hyphen) never disagrees with it.
 */
export function emailAddressSchema(message = 'must be an email address such as someone@example.com') {
  return z.string().max(254).regex(z.regexes.email, message);
}
