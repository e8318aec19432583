import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#core';
import { freePort, eventually, spawnApp, type AppProcess } from '#test-processes';
import { client, createAccount, type TestVigil } from '#test-vigil';

// Issue 11: a secret variable used in a check's header reaches the target and nothing else: not
// the run's result, not an assertion's actual value (even when the target echoes it back), not
// the alert webhook, the delivery log, the logs at debug level, or any file in DATA_DIR (which
// holds the event store, the state store, the analytics store and the bus with its DLQ).

const SECRET = 'sk_live_9f8e7d6c5b4a39281706';
const dataDir = mkdtempSync(join(tmpdir(), 'vigil-secret-'));
const adminKey = generateApiKey();
let app: AppProcess;
let target: Server;
let receiver: Server;
let url = '';
let targetUrl = '';
let receiverUrl = '';
const seenByTarget: string[] = [];
const webhooks: string[] = [];
let targetFails = true;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(async () => {
  // The target echoes the Authorization header back: the worst case for an assertion's actual value.
  target = createServer((request, response) => {
    seenByTarget.push(String(request.headers.authorization ?? ''));
    if (!targetFails) return void response.writeHead(200, { 'x-echo': 'nope' }).end('approved');
    response.writeHead(500, { 'content-type': 'text/plain', 'x-echo': String(request.headers.authorization) });
    response.end(`denied for ${request.headers.authorization}`);
  });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      webhooks.push(body);
      response.writeHead(200).end('ok');
    });
  });
  const [targetPort, receiverPort] = await Promise.all([listen(target), listen(receiver)]);
  targetUrl = `http://127.0.0.1:${targetPort}`;
  receiverUrl = `http://127.0.0.1:${receiverPort}`;
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  app = spawnApp('standalone', {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    VIGIL_ADMIN_KEY: adminKey,
    VIGIL_RUNNER_ALLOW_PRIVATE: 'true',
    VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
    VIGIL_WEBHOOK_RETRY_DELAY_MS: '100',
  });
  await eventually(
    async () => (await fetch(`${url}/ready`).catch(() => null))?.status ?? 0,
    (status) => status === 200 || app.child.exitCode !== null,
    90_000,
  );
}, 120_000);

afterAll(async () => {
  await app?.kill('SIGTERM');
  await new Promise((resolve) => target?.close(resolve));
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a secret used in a check header', () => {
  it('reaches the target and never appears in results, alerts, the delivery log, logs or data files', async () => {
    const vigil = {
      admin: client(url, adminKey),
      as: (key: string | null, account?: string) => client(url, key, account),
    };
    const a = await createAccount(vigil as unknown as TestVigil);
    expect((await a.owner.post('/v1/variables', { key: 'TOKEN', value: SECRET, secret: true })).status).toBe(201);
    const check = await a.owner.post('/v1/checks', {
      name: 'Payments',
      checkType: 'API',
      frequency: 1,
      request: {
        url: `${targetUrl}/charge?key={{TOKEN}}`,
        headers: [{ key: 'authorization', value: 'Bearer {{TOKEN}}' }],
        assertions: [
          { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'approved' },
          { source: 'HEADERS', property: 'x-echo', comparison: 'EQUALS', target: 'nope' },
        ],
      },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    const channel = await a.owner.post('/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'ops', url: `${receiverUrl}/hook`, method: 'POST' },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    const subscribed = await a.owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, {
      checkId: check.body.id,
      activated: true,
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBeLessThan(300);

    const runs: string[] = [];
    const alerted = eventually(
      async () => {
        // Failing and passing runs alternate, so each failing one is a new alert: an alert decided
        // before the alerter saw the subscription (projections lag under load) is not the last chance.
        targetFails = runs.length % 2 === 0;
        const run = await a.owner.post(`/v1/checks/${check.body.id}/trigger`);
        runs.push(JSON.stringify(run.body));
        return webhooks.length;
      },
      (count) => count > 0,
      // Generous: under a full npm test the pipeline (run → alert → webhook) shares two cores.
      150_000,
      3_000,
    );
    // On a timeout, say where the alert stopped: the last runs and what the server logged about alerts.
    await alerted.catch((error: Error) => {
      const trail = app
        .output()
        .split('\n')
        .filter((line) => /alert|deliver|dispatch|error|warn/i.test(line))
        .slice(-40)
        .join('\n');
      throw new Error(`${error.message}\nlast runs:\n${runs.slice(-3).join('\n')}\nserver log:\n${trail}`);
    });
    const deliveries = await a.owner.get(`/v1/alert-channels/${channel.body.id}/deliveries`);
    const analytics = await a.owner.get(`/v1/analytics/api-checks/${check.body.id}?metrics=responseTime&limit=50`);

    // The secret did reach the target, so the checks below can fail.
    expect(seenByTarget).toContain(`Bearer ${SECRET}`);
    expect(runs.join('\n')).toContain('"hasFailures":true');
    expect(runs.join('\n')).toContain('x-echo');
    for (const [what, text] of [
      ['run results and assertion outcomes', runs.join('\n')],
      ['alert webhooks', webhooks.join('\n')],
      ['the delivery log', JSON.stringify(deliveries.body)],
      ['analytics', JSON.stringify(analytics.body)],
      ['logs at debug level', app.output()],
    ] as const) {
      expect(text.includes(SECRET), `${what} hold the secret`).toBe(false);
    }
    for (const file of filesUnder(dataDir)) {
      expect(readFileSync(file).includes(SECRET), `${file} holds the secret in plaintext`).toBe(false);
    }
  }, 200_000);
});
