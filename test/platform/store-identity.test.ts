import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { expectRefusalThenRebuild, removeEventStore } from './store-identity.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-identity-sqlite-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('read models on SQLite state that belong to another event store', () => {
  it('refuse to start on a replaced event store, and work again after the rebuild', async () => {
    await expectRefusalThenRebuild({
      env: {},
      firstDataDir: dataDir,
      secondDataDir: dataDir,
      // state.sqlite stays; events.sqlite is replaced by a new, empty store.
      replace: () => removeEventStore(dataDir),
    });
  }, 180_000);
});
