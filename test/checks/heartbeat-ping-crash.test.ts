import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#core';
import { eventually, freePort, startApp, type AppProcess } from '#test-processes';
import { uniqueSuffix } from '#test-support';
import { client } from '#test-vigil';

// Embedded, a ping is answered once it is committed to the SQLite bus; DuckDB gets it from a
// drain afterwards. A SIGKILL while pings stream in must lose none that was answered 200: the
// restarted process drains what the dead one had not inserted yet.

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-ping-crash-'));
const adminKey = generateApiKey();
let app: AppProcess | undefined;

async function start(port: number): Promise<string> {
  const started = await startApp('standalone', port, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    VIGIL_ADMIN_KEY: adminKey,
    VIGIL_STANDALONE_APPS: 'api,projector',
    VIGIL_RATE_LIMIT_PER_MINUTE: '1000000',
    VIGIL_PING_RATE_PER_MINUTE: '1000000',
  });
  app = started.app;
  return started.url;
}

afterAll(async () => {
  await app?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('heartbeat pings survive kill -9 (embedded)', () => {
  it('every ping answered 200 before the kill is a stored result after the restart', async () => {
    const port = await freePort();
    let url = await start(port);
    const created = await client(url, adminKey).post('/v1/accounts', {
      name: 'crash',
      plan: 'team',
      ownerEmail: `ping-crash-${uniqueSuffix()}@example.com`,
    });
    expect(created.status).toBe(201);
    const accountId: string = created.body.account.id;
    const ownerKey: string = created.body.apiKey.key;
    let owner = client(url, ownerKey, accountId);
    const checks: { id: string; token: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const check = await owner.post('/v1/checks', {
        name: `cron ${i}`,
        checkType: 'HEARTBEAT',
        heartbeat: { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' },
      });
      expect(check.status).toBe(201);
      checks.push({ id: check.body.id, token: check.body.heartbeat.pingToken });
    }

    // 16 clients ping until 300 pings were answered; the kill lands while the last ones are in flight.
    const answered: { checkId: string; resultId: string }[] = [];
    let killed = false;
    const anonymous = client(url, null);
    const pinger = async (n: number) => {
      for (let i = n; !killed; i++) {
        const check = checks[i % checks.length]!;
        const answer = await anonymous.post(`/ping/${check.token}`).catch(() => null);
        if (answer?.status === 200) answered.push({ checkId: check.id, resultId: answer.body.resultId });
        else if (!killed) throw new Error(`ping answered ${answer?.status} ${JSON.stringify(answer?.body)}`);
        if (answered.length >= 300 && !killed) {
          killed = true;
          expect(await app!.kill('SIGKILL')).toBe('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, n) => pinger(n)));
    expect(answered.length).toBeGreaterThanOrEqual(300);

    url = await start(port);
    owner = client(url, ownerKey, accountId);
    for (const { checkId, resultId } of answered) {
      const stored = await eventually(
        () => owner.get(`/v1/check-results/${checkId}/${resultId}`),
        (r) => r.status === 200,
        30_000,
      );
      expect(stored.body.id).toBe(resultId);
    }
    // The last-ping times survived too: the next ping follows the ones before the crash.
    const next = await client(url, null).post(`/ping/${checks[0]!.token}`);
    expect(next.status).toBe(200);
    expect(next.body.status).toBe('EARLY');
  }, 240_000);
});
