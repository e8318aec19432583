import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '#core';
import { freePort, spawnTs, waitForHttp, type Child } from './processes.ts';

export interface VigilProcess {
  url: string;
  adminKey: string;
  ingestKey: string;
  dataDir: string;
  process: Child;
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export const ENCRYPTION_KEY = 'ab'.repeat(32);

/**
 * `apps/standalone` as its own process (what `npm start` runs), on a free port and a fresh
 * DATA_DIR, with the apps and adapters the env names. The bench process stays the client only.
 */
export async function spawnVigil(env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<VigilProcess> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const adminKey = generateApiKey();
  const ingestKey = generateApiKey();
  const port = await freePort();
  const child = spawnTs(
    'apps/standalone/src/main.ts',
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      VIGIL_ADMIN_KEY: adminKey,
      VIGIL_INGEST_KEY: ingestKey,
      VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
      VIGIL_RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
    nodeArgs,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/ready`, child, 120_000);
  return {
    url,
    adminKey,
    ingestKey,
    dataDir,
    process: child,
    async stop(options = {}) {
      await child.stop();
      if (!options.keepData && !env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Client {
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

export function client(baseUrl: string, key: string, accountId?: string): Client {
  return {
    async request<T>(method: string, path: string, body?: unknown) {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (accountId) headers['x-service-account'] = accountId;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
    },
  };
}

/** Creates an account through the API; returns its id and the owner's (real) key. */
export async function createAccount(url: string, adminKey: string, plan: 'team' | 'enterprise' = 'enterprise') {
  const suffix = Math.random().toString(36).slice(2, 10);
  const created = await client(url, adminKey).request<{ account: { id: string }; apiKey: { key: string } }>(
    'POST',
    '/v1/accounts',
    {
      name: `Bench ${suffix}`,
      plan,
      ownerEmail: `bench-${suffix}@example.com`,
    },
  );
  if (created.status !== 201)
    throw new Error(`account creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const { account, apiKey } = created.body;
  return { accountId: account.id, key: apiKey.key, owner: client(url, apiKey.key, account.id) };
}

/** Creates `count` API checks (a few at a time) and returns their ids. */
export async function createChecks(owner: Client, count: number, locations: string[]): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const created = await owner.request<{ id: string }>('POST', '/v1/checks', {
        name: `bench check ${i}`,
        checkType: 'API',
        locations,
      });
      if (created.status !== 201)
        throw new Error(`check creation failed: ${created.status} ${JSON.stringify(created.body)}`);
      ids[i] = created.body.id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}
