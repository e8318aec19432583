import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#core';
import { freePort, startApp, type AppProcess } from '#test-processes';
import { uniqueSuffix } from '#test-support';
import { client } from '#test-vigil';

// Issue 12, defect 7: after a SIGKILL the dead process's projection lease is still held; the
// restarted process must take it over quickly enough that a write right after the restart is
// answered once its read models include it, so the next GET sees it.

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-crash-ryw-'));
const adminKey = generateApiKey();
let app: AppProcess | undefined;

// /health, not /ready: the write must be made as soon as the restarted process answers at all.
async function start(port: number): Promise<string> {
  const started = await startApp(
    'standalone',
    port,
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VIGIL_ADMIN_KEY: adminKey,
      VIGIL_INGEST_KEY: generateApiKey(),
      VIGIL_RATE_LIMIT_PER_MINUTE: '1000000',
    },
    '/health',
    60_000,
  );
  app = started.app;
  return started.url;
}

afterAll(async () => {
  await app?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('read your writes right after a crash restart', () => {
  it('a write made as soon as the restarted process answers is seen by the next GET', async () => {
    const port = await freePort();
    let url = await start(port);
    const created = await client(url, adminKey).post('/v1/accounts', {
      name: 'crash',
      plan: 'team',
      ownerEmail: `crash-ryw-${uniqueSuffix()}@example.com`,
    });
    expect(created.status).toBe(201);
    const accountId: string = created.body.account.id;
    const ownerKey: string = created.body.apiKey.key;
    expect((await client(url, ownerKey, accountId).post('/v1/variables', { key: 'BEFORE', value: '1' })).status).toBe(
      201,
    );

    for (let round = 0; round < 2; round++) {
      // The projector in the killed process held its lease; nothing released it.
      expect(await app!.kill('SIGKILL')).toBe('SIGKILL');
      url = await start(port);
      const owner = client(url, ownerKey, accountId);
      const key = `AFTER_CRASH_${round}`;
      const written = await owner.post('/v1/variables', { key, value: `v${round}` });
      expect(written.status, JSON.stringify(written.body)).toBe(201);
      const read = await owner.get(`/v1/variables/${key}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.value).toBe(`v${round}`);
    }
  }, 180_000);
});
