import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { ServiceEnv } from './global-setup.ts';

/** Addresses of the real services; throws (failing the suite) when they are not running. */
export function services(): ServiceEnv {
  const provided = inject('services');
  if ('error' in provided)
    throw new Error(
      `This suite needs the services of scripts/services.sh (Redis, ClickHouse, Kafka, PostgreSQL, dnsmasq, Chromium). ${provided.error}`,
    );
  return provided;
}

/** A short unique suffix so suites sharing one server never see each other's keys or tables. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Adds A/AAAA records to the test DNS server (dnsmasq re-reads DNS_HOSTS_DIR on change) and returns
 * a function that removes them. Names should carry a uniqueSuffix() so suites never collide.
 */
export async function addDnsRecords(records: Array<{ name: string; address: string }>): Promise<() => Promise<void>> {
  const dir = services().DNS_HOSTS_DIR;
  const file = join(dir, `${uniqueSuffix()}.hosts`);
  const temp = join(dir, `.${uniqueSuffix()}.tmp`);
  await writeFile(temp, records.map((r) => `${r.address} ${r.name}\n`).join(''), { mode: 0o644 });
  // A rename is one inotify event: dnsmasq never reads a half-written file.
  await rename(temp, file);
  return () => rm(file, { force: true });
}
