import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '#core';
import { loadStandaloneConfig, startStandalone, type RunningStandalone } from '../../apps/standalone/index.ts';
import { uniqueSuffix } from './services.ts';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiClient {
  request<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string>; raw?: string },
  ): Promise<ApiResponse<T>>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

export interface TestVigil {
  url: string;
  adminKey: string;
  ingestKey: string;
  dataDir: string;
  running: RunningStandalone;
  /** A client that sends this key (and account header, when given) on every request. */
  as(key: string | null, accountId?: string): ApiClient;
  admin: ApiClient;
  stop(): Promise<void>;
}

export interface StartVigilOptions {
  /** Extra environment, e.g. REDIS_URL to run on Redis instead of the embedded state store. */
  env?: Record<string, string>;
  dataDir?: string;
  keepData?: boolean;
}

/** Starts the whole standalone process in this test process, on a free port and a temp DATA_DIR. */
export async function startVigil(options: StartVigilOptions = {}): Promise<TestVigil> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'vigil-test-'));
  const adminKey = generateApiKey();
  const ingestKey = generateApiKey();
  const config = loadStandaloneConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    VIGIL_ADMIN_KEY: adminKey,
    VIGIL_INGEST_KEY: ingestKey,
    REDIS_KEY_PREFIX: `vigil-test-${uniqueSuffix()}:`,
    ...options.env,
  });
  const running = await startStandalone(config);
  const url = running.url;
  const as = (key: string | null, accountId?: string): ApiClient => client(url, key, accountId);
  return {
    url,
    adminKey,
    ingestKey,
    dataDir,
    running,
    as,
    admin: as(adminKey),
    async stop() {
      await running.stop();
      if (!options.keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function client(baseUrl: string, key: string | null, accountId?: string): ApiClient {
  const request = async <T>(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (key) headers.authorization = `Bearer ${key}`;
    if (accountId) headers['x-service-account'] = accountId;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  };
  return {
    request,
    get: (path, headers) => request('GET', path, { headers }),
    post: (path, body, headers) => request('POST', path, { body, headers }),
    put: (path, body, headers) => request('PUT', path, { body, headers }),
    patch: (path, body, headers) => request('PATCH', path, { body, headers }),
    delete: (path, headers) => request('DELETE', path, { headers }),
  };
}

/** Creates an account through the API and returns its id and the owner's key. */
export async function createAccount(
  vigil: TestVigil,
  plan: 'hobby' | 'team' | 'enterprise' = 'team',
  ownerEmail = `owner-${uniqueSuffix()}@example.com`,
) {
  const response = await vigil.admin.post<{
    account: { id: string };
    owner: { id: string; email: string };
    apiKey: { key: string };
  }>('/v1/accounts', {
    name: `Account ${uniqueSuffix()}`,
    plan,
    ownerEmail,
  });
  if (response.status !== 201)
    throw new Error(`account creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  const { account, owner, apiKey } = response.body;
  return {
    accountId: account.id,
    ownerId: owner.id,
    ownerEmail: owner.email,
    ownerKey: apiKey.key,
    owner: vigil.as(apiKey.key, account.id),
  };
}
