import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sqlite, createLogger } from '#core';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { rebuildReadModels } from '../../apps/projector/index.ts';

/** Every read-model row in the embedded state store, sorted, so two snapshots can be compared. */
function snapshot(dataDir: string): string[] {
  const db = new Sqlite(join(dataDir, 'state.sqlite'), { readonly: true });
  try {
    const rows = [
      ...db.prepare("SELECT 'kv' t, key, '' f, value v FROM kv WHERE key LIKE 'rm:%'").all(),
      ...db.prepare("SELECT 'h' t, key, field f, value v FROM hashes WHERE key LIKE 'rm:%'").all(),
      ...db.prepare("SELECT 'z' t, key, member f, CAST(score AS TEXT) v FROM zsets WHERE key LIKE 'rm:%'").all(),
    ] as { t: string; key: string; f: string; v: string }[];
    return rows.map((r) => `${r.t} ${r.key} ${r.f} ${r.v}`).sort();
  } finally {
    db.close();
  }
}

describe('rebuilding read models from position zero', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('reproduces exactly the read models the live projection built, and refuses while a projector runs', async () => {
    const a = await createAccount(vigil, 'enterprise');
    await a.owner.post('/v1/variables', { key: 'A', value: '1', locked: true });
    await a.owner.post('/v1/variables', { key: 'S', value: 'secret', secret: true });
    await a.owner.put('/v1/variables/A', { value: '2' });
    await a.owner.delete('/v1/variables/A');
    const user = await a.owner.post('/v1/users', { email: `r-${Date.now()}@example.com`, role: 'READ_WRITE' });
    await a.owner.post('/v1/api-keys', { name: 'svc', type: 'service', role: 'READ_ONLY' });
    const group = await a.owner.post('/v1/check-groups', { name: 'g' });
    const check = await a.owner.post('/v1/checks', { name: 'c', checkType: 'API', groupId: group.body.id });
    const channel = await a.owner.post('/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'w', url: 'https://hooks.example.com/x' },
    });
    await a.owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, {
      checkId: check.body.id,
      activated: true,
    });
    await a.owner.delete(`/v1/users/${user.body.user.id}`);
    const before = snapshot(vigil.dataDir);
    expect(before.length).toBeGreaterThan(20);

    const log = createLogger({ level: 'silent' });
    await expect(rebuildReadModels(vigil.running.platform, log)).rejects.toThrow(/projector is running/);
    await vigil.running.lifecycle.stop();
    // Reopen on the same data without a projector, as an operator runs the rebuild command.
    vigil = await startVigil({ dataDir: vigil.dataDir, keepData: true, env: { VIGIL_STANDALONE_APPS: 'api' } });
    await rebuildReadModels(vigil.running.platform, log);
    expect(snapshot(vigil.dataDir)).toEqual(before);
    const again = vigil.as(a.ownerKey, a.accountId);
    expect((await again.get('/v1/variables/S')).body.value).toBe('********');
    expect((await again.get('/v1/variables/A')).status).toBe(404);
  });
});
