import { inject } from 'vitest';

/** The PostgreSQL server of this test run (scripts/services.sh); a missing one fails the suite. */
export function postgresUrl(): string {
  const provided = inject('services') as unknown as Record<string, string | undefined>;
  const url = provided.VIGIL_POSTGRES_URL;
  if (url) return url;
  throw new Error(
    `This suite needs PostgreSQL (VIGIL_POSTGRES_URL from scripts/services.sh env). ${provided.error ?? ''}`,
  );
}
