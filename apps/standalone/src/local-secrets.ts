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
 * When VIGIL_ADMIN_KEY is unset on the first start, a key is generated and returned, for the
 * start-up banner to show once; only its hash is kept, in the state store, where every API
 * replica finds it. A set VIGIL_ADMIN_KEY wins over a generated one, which then stops working.
 */
export async function ensureAdminKey(
  stateStore: StateStore,
  configured: string | undefined,
  log: Logger,
): Promise<string | undefined> {
  if (configured) {
    const stored = await stateStore.get(ADMIN_KEY_HASH_KEY);
    if (stored !== null && stored !== sha256Hex(configured))
      log.info(
        'VIGIL_ADMIN_KEY is set: it replaces the admin key generated on the first start, which is refused while it is set',
      );
    return undefined;
  }
  const key = generateApiKey();
  if (!(await stateStore.setIfAbsent(ADMIN_KEY_HASH_KEY, sha256Hex(key)))) return undefined;
  log.info('generated the platform admin key');
  return key;
}

/**
 * What a first start prints: the admin key (shown once) and what to do next. It goes to stdout
 * on purpose, outside the structured log, so the key is never shipped to a log store.
 */
export function startBanner(
  url: string,
  adminKey: string | undefined,
  privateTargets = false,
  cli = 'apps/cli/bin/vigil.js',
): string {
  const lines = ['', `Vigil is running at ${url}`, ''];
  // The switch newcomers need first (a check of localhost, a receiver on this machine) is named here.
  if (!privateTargets)
    lines.push(
      'Checks, scripts and alert deliveries may not reach loopback or private addresses (SSRF policy).',
      'To monitor this machine or your network, or deliver to a local receiver, start with',
      '  VIGIL_ALLOW_PRIVATE_TARGETS=true npm start',
      '',
    );
  if (adminKey)
    lines.push(
      'Platform admin key (shown once; only its hash is kept; set VIGIL_ADMIN_KEY to use your own):',
      `  ${adminKey}`,
      '',
      'Next steps:',
      `  export VIGIL_API_URL=${url} VIGIL_ADMIN_KEY=${adminKey}`,
      // Not `npx vigil`: outside this clone npx fetches an unrelated npm package of that name, and
      // inside it npm's own start and registry lookup cost a second or more per call.
      `  alias vigil='node ${cli}'    # from any directory; or run \`npm link\` once here`,
      '  vigil admin create-account --name Acme --owner-email you@example.com --plan team --login',
      '  vigil whoami',
      '',
    );
  lines.push(`Console: ${url}/   API reference: ${url}/docs   Walkthrough: README.md`, '');
  return lines.join('\n') + '\n';
}
