import { inject } from 'vitest';
import type { ServiceEnv } from './global-setup.ts';

/** Addresses of the real services; throws (failing the suite) when they are not running. */
export function services(): ServiceEnv {
  const provided = inject('services');
  if ('error' in provided) throw new Error(`This suite needs Redis, ClickHouse and Kafka. ${provided.error}`);
  return provided;
}

/** A short unique suffix so suites sharing one server never see each other's keys or tables. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}
