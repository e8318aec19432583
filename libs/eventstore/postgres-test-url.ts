import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';

/**
 * The PostgreSQL server of this test run, from scripts/services.sh (VIGIL_POSTGRES_URL). A missing
 * server fails the suite, never skips it.
 */
export function postgresTestUrl(): string {
  const provided = inject('services') as unknown as Record<string, string | undefined>;
  const url = provided.VIGIL_POSTGRES_URL;
  if (url) return url;
  throw new Error(
    `This suite needs PostgreSQL (VIGIL_POSTGRES_URL from scripts/services.sh env). ${provided.error ?? ''}`,
  );
}

/** A schema of its own, so suites sharing the server never see each other's events. */
export function uniqueSchema(label: string): string {
  return `t_${label}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}
