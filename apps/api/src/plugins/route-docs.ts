import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import type { RouteDoc } from '#http';
import type { RouteAccess } from '../access.ts';

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
  if (methods.includes('POST')) doc.headers['idempotency-key'] = idempotencyHeader;
  if (access === undefined || access === 'public') {
    doc.notes.push('Needs no API key.');
    return { ...doc, security: [] };
  }
  doc.statuses.push(401, 403, 429);
  if ('platform' in access) {
    doc.notes.push(`Needs the platform ${access.platform} key (VIGIL_${access.platform.toUpperCase()}_KEY).`);
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
