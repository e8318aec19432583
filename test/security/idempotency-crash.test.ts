import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Sqlite, generateApiKey } from '#core';
import { eventually, freePort, startApp, type AppProcess } from '#test-processes';
import { uniqueSuffix } from '#test-support';
import { client, type ApiClient, type ApiResponse } from '#test-vigil';

// An in-progress Idempotency-Key is a lease of the process serving it. Writes are committed but
// not yet answered (the API runs without its projector, so every write waits for read models that
// never come); the process is then SIGKILLed, started again on the same data, and every request is
// retried with its key: each retry gets the committed outcome, never "still in progress" for
// hours, and nothing is written twice.

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-idem-crash-'));
const adminKey = generateApiKey();
let app: AppProcess | undefined;

async function start(port: number, env: Record<string, string> = {}): Promise<string> {
  const started = await startApp(
    'standalone',
    port,
    {
      ...env,
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

describe('idempotency across a SIGKILL', () => {
  it('every retry after the crash gets the committed outcome or a safe re-run, never a lasting 409', async () => {
    const port = await freePort();
    let url = await start(port);
    const created = await client(url, adminKey).post('/v1/accounts', {
      name: 'crash',
      plan: 'team',
      ownerEmail: `crash-${uniqueSuffix()}@example.com`,
    });
    expect(created.status).toBe(201);
    const accountId: string = created.body.account.id;
    const ownerKey: string = created.body.apiKey.key;
    const owner = (): ApiClient => client(url, ownerKey, accountId);

    const suffix = uniqueSuffix();
    const kinds = 4;
    const writes = Array.from({ length: 300 }, (_, i) =>
      i % kinds === 0
        ? { path: '/v1/variables', body: { key: `VAR_${i}`, value: `value ${i}` }, key: `var-${i}` }
        : i % kinds === 1
          ? {
              path: '/v1/alert-channels',
              body: { config: { name: `channel ${i}`, url: `https://example.com/hook/${i}` } },
              key: `channel-${i}`,
            }
          : i % kinds === 2
            ? { path: '/v1/check-groups', body: { name: `group ${i}` }, key: `group-${i}` }
            : {
                path: '/v1/users',
                body: { email: `user-${i}-${suffix}@example.com`, role: 'READ_ONLY' },
                key: `user-${i}`,
              },
    );
    const send = (w: (typeof writes)[number]) => owner().post(w.path, w.body, { 'idempotency-key': w.key });

    // The API alone: every write is committed to the event store, then waits for the projector.
    await app!.kill('SIGTERM');
    url = await start(port, { VIGIL_STANDALONE_APPS: 'api', VIGIL_READ_YOUR_WRITES_TIMEOUT_MS: '60000' });
    const events = new Sqlite(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    const count = () => (events.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    const before = count();
    const answered = new Map<string, ApiResponse>();
    const inFlight = writes.map((w) =>
      send(w).then(
        (response) => void answered.set(w.key, response),
        () => undefined,
      ),
    );
    await eventually(
      async () => count(),
      (n) => n >= before + writes.length,
      60_000,
      50,
    );
    events.close();
    expect(await app!.kill('SIGKILL')).toBe('SIGKILL');
    await Promise.all(inFlight);
    expect(answered.size, 'every write was committed but none answered').toBe(0);

    url = await start(port);
    for (const w of writes) {
      // A lease of the dead process lapses within seconds; until then the answer is a 409 to retry.
      const retry = await eventually(
        () => send(w),
        (response) => response.status !== 409,
        30_000,
        500,
      );
      expect(retry.status, `${w.key}: ${JSON.stringify(retry.body)}`).toBe(201);
      if (w.path === '/v1/alert-channels') expect(retry.body.config.name).toBe(w.body.config!.name);
      else if (w.path === '/v1/users') {
        // The new member's first key: its answer was lost, so the retry hands out a working one.
        expect(retry.body.user.email).toBe(w.body.email);
        expect((await client(url, retry.body.apiKey.key, accountId).get('/v1/accounts/me')).status).toBe(200);
      } else expect(retry.body).toMatchObject(w.body);
    }

    // Nothing was written twice: one variable, channel, group or member per request.
    for (const path of ['/v1/variables', '/v1/alert-channels', '/v1/check-groups']) {
      const list = await owner().get(`${path}?limit=100`);
      expect(Number(list.headers.get('x-total-count')), path).toBe(writes.length / kinds);
    }
    expect((await owner().get('/v1/users')).body).toHaveLength(1 + writes.length / kinds);
  }, 240_000);
});
