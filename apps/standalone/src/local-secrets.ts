import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiKey, sha256Hex, type Logger } from '#core';
import type { StateStore } from '#statestore';
import { ADMIN_KEY_HASH_KEY } from '../../api/index.ts';

/**
 * The encryption key lives in DATA_DIR with 0600 permissions when none is configured, so a
 * laptop install encrypts secrets from the first start without any set-up.
 */
export function ensureEncryptionKey(dataDir: string, configured: string | undefined, log: Logger): string {
  if (configured) return configured;
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'encryption.key');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    const key = randomBytes(32).toString('hex');
    writeFileSync(path, key + '\n', { mode: 0o600, flag: 'wx' });
    log.info({ path }, 'generated an encryption key for secrets');
    return key;
  }
}

/**
 * When VIGIL_ADMIN_KEY is unset on the first start, a key is generated and printed once;
 * only its hash is kept, in the state store, where every API replica finds it.
 */
export async function ensureAdminKey(
  stateStore: StateStore,
  configured: string | undefined,
  log: Logger,
): Promise<void> {
  if (configured) return;
  const key = generateApiKey();
  if (await stateStore.setIfAbsent(ADMIN_KEY_HASH_KEY, sha256Hex(key))) {
    // Printed to stdout on purpose, outside the structured log, so it is never shipped to a log store.
    process.stdout.write(`\nPlatform admin key (shown once; set VIGIL_ADMIN_KEY to use your own):\n  ${key}\n\n`);
    log.info('generated the platform admin key');
  }
}
