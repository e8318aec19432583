import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { services, uniqueSuffix } from '#test-support';
import { expectRefusalThenRebuild } from './store-identity.ts';

const first = mkdtempSync(join(tmpdir(), 'vigil-identity-redis-a-'));
const second = mkdtempSync(join(tmpdir(), 'vigil-identity-redis-b-'));
afterAll(() => {
  rmSync(first, { recursive: true, force: true });
  rmSync(second, { recursive: true, force: true });
});

describe('read models in Redis that belong to another event store', () => {
  it('refuse to start on a fresh DATA_DIR with the same Redis prefix, and work after the rebuild', async () => {
    const env = { REDIS_URL: services().REDIS_URL, REDIS_KEY_PREFIX: `vigil-identity-${uniqueSuffix()}:` };
    await expectRefusalThenRebuild({ env, firstDataDir: first, secondDataDir: second, replace: () => undefined });
  }, 180_000);
});
