import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// The real API's document and server agree (issue 12, defect 10; issue 14, point 15).

type Operation = {
  operationId?: string;
  description?: string;
  summary?: string;
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  responses: Record<string, unknown>;
};
let vigil: TestVigil;
let owner: ApiClient;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  vigil = await startVigil();
  owner = (await createAccount(vigil)).owner;
  paths = (await vigil.admin.get<{ paths: typeof paths }>('/openapi.json')).body.paths;
}, 120_000);
afterAll(async () => {
  await vigil?.stop();
});

describe('the API reference', () => {
  it('gives every operation a unique operationId and a description; account routes document X-Service-Account', () => {
    const operations = Object.entries(paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    );
    expect(operations.length).toBeGreaterThan(40);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ operation }) => !operation.description).map(({ name }) => name)).toEqual([]);
    const checks = paths['/v1/checks']!.get!;
    expect(checks.parameters?.map((p) => `${p.in}:${p.name}`)).toContain('header:x-service-account');
    expect(Object.keys(checks.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '414', '429', '431']));
    expect(JSON.stringify(paths)).not.toContain('a API check');
  });

  it('documents the 400 an over-long id gets, and answers it naming the field', async () => {
    expect(Object.keys(paths['/v1/checks/{id}']!.get!.responses)).toContain('400');
    const answer = await owner.get(`/v1/checks/${'a'.repeat(100)}`);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^id: /);
  });

  it('answers 405 with Allow for a method the path does not have', async () => {
    const answer = await owner.request('PATCH', '/v1/checks');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(answer.body).toMatchObject({ statusCode: 405, error: 'Method Not Allowed' });
  });

  it('a page past the last is an empty list; a page out of range names page, not an internal field', async () => {
    const last = await owner.get('/v1/variables?page=1000000');
    expect(last.status).toBe(200);
    expect(last.body).toEqual([]);
    const huge = await owner.get('/v1/variables?page=9007199254740990');
    expect(huge.status).toBe(400);
    expect(huge.body.message).toMatch(/^page: /);
  });
});
