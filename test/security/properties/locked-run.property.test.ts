import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// Issue 21, item 3, as a property: whatever a locked value is, and wherever a check puts it, a
// caller below ADMIN never reads it back from a run, though the target received it. The target
// echoes every part that can carry it (path and query, header, basic auth, body) in its body and
// in a header.

const place = fc.constantFrom('path', 'query', 'header', 'body', 'basicAuth');
// A prefix no response holds by chance: fast-check also draws plain words (a CI run drew
// "property", which every run's assertion list carries as a key). The random rest still covers
// what needs encoding in a path, query, header and basic auth.
const value = fc
  .string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~!$*+'),
    minLength: 6,
    maxLength: 38,
  })
  .map((text) => `Zq${text}`);

let vigil: TestVigil;
let target: Server;
let base = '';
let owner: ApiClient;
let readWrite: ApiClient;
let readOnly: ApiClient;
let groupId = '';
const received: string[] = [];

beforeAll(async () => {
  target = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      // Short, so every part fits before the 200-character cut of an assertion's actual value.
      const echo = [request.url, request.headers['x-value'] ?? '', request.headers.authorization ?? '', body].join('|');
      // What arrived, decoded, to check the value was substituted.
      const auth = String(request.headers.authorization ?? '').replace(/^Basic /, '');
      received.push(
        [
          new URL(request.url ?? '/', 'http://x').pathname,
          ...new URL(request.url ?? '/', 'http://x').searchParams.values(),
          String(request.headers['x-value'] ?? ''),
          body,
          Buffer.from(auth, 'base64').toString(),
        ]
          .map((part) => decodeURIComponent(part))
          .join('\n'),
      );
      response.writeHead(200, { 'content-type': 'text/plain', 'x-echo': encodeURIComponent(echo) }).end(echo);
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true', VIGIL_RATE_LIMIT_PER_MINUTE: '100000' } });
  const account = await createAccount(vigil);
  owner = account.owner;
  const invite = async (role: string) => {
    const response = await owner.post('/v1/users', { email: `${role}-${uniqueSuffix()}@example.com`, role });
    return vigil.as(response.body.apiKey.key, account.accountId);
  };
  readWrite = await invite('READ_WRITE');
  readOnly = await invite('READ_ONLY');
  const group = await owner.post('/v1/check-groups', { name: 'g' });
  groupId = group.body.id;
  const created = await owner.post('/v1/variables', { key: 'ACCOUNT_LOCKED', value: 'placeholder', locked: true });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await vigil?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

function definition(where: string, name: string) {
  const ref = `{{${name}}}`;
  return {
    name: 'echo',
    checkType: 'API',
    groupId,
    request: {
      method: 'POST',
      url: where === 'path' ? `${base}/p/${ref}` : `${base}/p`,
      queryParameters: where === 'query' ? [{ key: 'q', value: ref }] : [],
      headers: where === 'header' ? [{ key: 'x-value', value: ref }] : [],
      bodyType: 'RAW',
      body: where === 'body' ? `v=${ref}` : '',
      ...(where === 'basicAuth' ? { basicAuth: { username: 'user', password: ref } } : {}),
      assertions: [
        { source: 'TEXT_BODY', comparison: 'EQUALS', target: 'never' },
        { source: 'HEADERS', property: 'x-echo', comparison: 'EQUALS', target: 'never' },
      ],
    },
  };
}

/** The forms a leak could take in a JSON answer: as is, URL- and form-encoded, and as basic-auth base64. */
function forms(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ q: secret }).toString().slice(2),
    Buffer.from(`user:${secret}`).toString('base64'),
  ];
}

describe('locked values never come back from a run below ADMIN (property)', () => {
  it('test runs by READ_WRITE and stored runs read by READ_ONLY, account and group variables alike', async () => {
    await fc.assert(
      fc.asyncProperty(value, place, fc.boolean(), async (secret, where, inGroup) => {
        const name = inGroup ? 'GROUP_LOCKED' : 'ACCOUNT_LOCKED';
        if (inGroup) {
          const put = await owner.put(`/v1/check-groups/${groupId}`, {
            name: 'g',
            environmentVariables: [{ key: name, value: secret, locked: true }],
          });
          expect(put.status, JSON.stringify(put.body)).toBe(200);
        } else {
          const put = await owner.put(`/v1/variables/${name}`, { value: secret, locked: true });
          expect(put.status, JSON.stringify(put.body)).toBe(200);
        }
        const before = received.length;
        const run = await readWrite.post('/v1/checks/test', definition(where, name));
        expect(run.status, JSON.stringify(run.body)).toBe(200);
        // Substituted: the target saw the value (in its own encoding for basic auth).
        expect(received.length).toBe(before + 1);
        expect(received.at(-1)).toContain(secret);
        const answer = JSON.stringify(run.body);
        for (const form of forms(secret)) expect(answer).not.toContain(form);

        const check = await owner.post('/v1/checks', definition(where, name));
        expect(check.status, JSON.stringify(check.body)).toBe(201);
        const triggered = await readWrite.post(`/v1/checks/${check.body.id}/trigger`);
        expect(triggered.status).toBe(200);
        const resultId = triggered.body.results[0].result.id;
        const stored = await readOnly.get(`/v1/check-results/${check.body.id}/${resultId}`);
        expect(stored.status).toBe(200);
        for (const text of [JSON.stringify(triggered.body), JSON.stringify(stored.body)])
          for (const form of forms(secret)) expect(text).not.toContain(form);
        await owner.delete(`/v1/checks/${check.body.id}`);
      }),
      { numRuns: 25 },
    );
  });
});
