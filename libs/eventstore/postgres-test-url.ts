import { randomUUID } from 'node:crypto';
import { services } from '#test-support';

/** The PostgreSQL server of this test run (scripts/services.sh); a missing one fails the suite, never skips it. */
export function postgresTestUrl(): string {
  return services().VIGIL_POSTGRES_URL;
}

/** A schema of its own, so suites sharing the server never see each other's events. */
export function uniqueSchema(label: string): string {
  return `t_${label}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}
