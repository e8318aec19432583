import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil } from '#test-vigil';
import { postgresUrl } from './postgres-url.ts';
import { runRebuild, runScript, snapshotReadModels } from './store-identity.ts';

const sqliteDir = mkdtempSync(join(tmpdir(), 'vigil-copy-sqlite-'));
const postgresDir = mkdtempSync(join(tmpdir(), 'vigil-copy-pg-'));
const schema = `t_copy_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

afterAll(async () => {
  rmSync(sqliteDir, { recursive: true, force: true });
  rmSync(postgresDir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

describe('npm run events:copy', () => {
  it('copies SQLite to PostgreSQL in global order; read models rebuilt from each are byte-identical', async () => {
    const vigil = await startVigil({ dataDir: sqliteDir, env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
    try {
      for (let n = 0; n < 3; n++) {
        const a = await createAccount(vigil, 'enterprise');
        await a.owner.post('/v1/variables', { key: 'A', value: `${n}`, locked: true });
        await a.owner.post('/v1/variables', { key: 'S', value: 'secret', secret: true });
        await a.owner.put('/v1/variables/A', { value: 'changed' });
        await a.owner.post('/v1/variables', { key: 'GONE', value: 'x' });
        await a.owner.delete('/v1/variables/GONE');
        const user = await a.owner.post('/v1/users', {
          email: `copy-${n}-${Date.now()}@example.com`,
          role: 'READ_WRITE',
        });
        await a.owner.post('/v1/api-keys', { name: 'svc', type: 'service', role: 'READ_ONLY' });
        const group = await a.owner.post('/v1/check-groups', { name: `g${n}` });
        await a.owner.post('/v1/checks', { name: `c${n}`, checkType: 'API', groupId: group.body.id });
        await a.owner.post('/v1/alert-channels', {
          type: 'WEBHOOK',
          config: { name: 'w', url: 'https://hooks.example.com/x' },
        });
        await a.owner.delete(`/v1/users/${user.body.user.id}`);
      }
    } finally {
      await vigil.stop();
    }

    const target = `${postgresUrl()}${postgresUrl().includes('?') ? '&' : '?'}schema=${schema}`;
    const copied = await runScript('apps/projector/src/copy-events-main.ts', [
      '--from',
      `sqlite:${join(sqliteDir, 'events.sqlite')}`,
      '--to',
      target,
    ]);
    expect(copied.code, copied.output).toBe(0);
    expect(copied.output).toMatch(/copied \d+ events in \d+ streams/);

    // Copying into a store that already holds events is refused.
    const again = await runScript('apps/projector/src/copy-events-main.ts', [
      '--from',
      `sqlite:${join(sqliteDir, 'events.sqlite')}`,
      '--to',
      target,
    ]);
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/not empty/);

    const fromSqlite = await runRebuild({ DATA_DIR: sqliteDir });
    expect(fromSqlite.code, fromSqlite.output).toBe(0);
    const fromPostgres = await runRebuild({
      DATA_DIR: postgresDir,
      EVENTSTORE_URL: postgresUrl(),
      EVENTSTORE_SCHEMA: schema,
    });
    expect(fromPostgres.code, fromPostgres.output).toBe(0);
    const expected = snapshotReadModels(sqliteDir);
    expect(expected.length).toBeGreaterThan(30);
    expect(snapshotReadModels(postgresDir)).toEqual(expected);
  }, 180_000);
});
