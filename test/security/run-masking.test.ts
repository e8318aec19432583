import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// Issue 21, item 3: the one masking rule across runs. A run substitutes locked values (the check
// must work), but a caller who may not read a locked value never reads it back from the run: not
// in the test run's answer, not in a refusal message, not in a triggered run's answer, and nobody
// below ADMIN reads it in stored results (stored results are read by everyone in the account, so
// locked values are scrubbed from them like secrets).

const LOCKED = 'acct-locked-7f3a9c21e5';
const GROUP_LOCKED = 'grp-locked-4b8d2e61a0';
const MASK = '********';

interface Callers {
  owner: ApiClient;
  admin: ApiClient;
  readWrite: ApiClient;
  readOnly: ApiClient;
  accountId: string;
  groupId: string;
}

async function setUp(vigil: TestVigil): Promise<Callers> {
  const account = await createAccount(vigil);
  const owner = account.owner;
  const invite = async (role: string) => {
    const response = await owner.post('/v1/users', { email: `${role}-${uniqueSuffix()}@example.com`, role });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return vigil.as(response.body.apiKey.key, account.accountId);
  };
  const created = await owner.post('/v1/variables', { key: 'ACCOUNT_LOCKED', value: LOCKED, locked: true });
  expect(created.status).toBe(201);
  const group = await owner.post('/v1/check-groups', {
    name: 'g',
    environmentVariables: [{ key: 'GROUP_LOCKED', value: GROUP_LOCKED, locked: true }],
  });
  expect(group.status).toBe(201);
  return {
    owner,
    admin: await invite('ADMIN'),
    readWrite: await invite('READ_WRITE'),
    readOnly: await invite('READ_ONLY'),
    accountId: account.accountId,
    groupId: group.body.id,
  };
}

const leaks = (body: unknown) => {
  const text = JSON.stringify(body);
  return [LOCKED, GROUP_LOCKED].filter((value) => text.includes(value));
};

describe('locked values in runs, private targets refused (the refusal message)', () => {
  let vigil: TestVigil;
  let callers: Callers;
  beforeAll(async () => {
    vigil = await startVigil();
    callers = await setUp(vigil);
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('a READ_WRITE test run of http://127.0.0.1/{{ACCOUNT_LOCKED}} is refused without the value', async () => {
    for (const key of ['ACCOUNT_LOCKED', 'GROUP_LOCKED']) {
      const run = await callers.readWrite.post('/v1/checks/test', {
        name: 'probe',
        checkType: 'API',
        groupId: callers.groupId,
        request: { url: `http://127.0.0.1/{{${key}}}` },
      });
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      expect(run.body.result.hasFailures).toBe(true);
      expect(run.body.result.errorMessage).toMatch(/VIGIL_ALLOW_PRIVATE_TARGETS/);
      expect(leaks(run.body)).toEqual([]);
      expect(run.body.result.errorMessage).toContain(MASK);
    }
  });

  it('an ADMIN, who may read the values, sees them in the same refusal', async () => {
    const run = await callers.admin.post('/v1/checks/test', {
      name: 'probe',
      checkType: 'API',
      groupId: callers.groupId,
      request: { url: 'http://127.0.0.1/{{ACCOUNT_LOCKED}}/{{GROUP_LOCKED}}' },
    });
    expect(run.status).toBe(200);
    expect(leaks(run.body).sort()).toEqual([GROUP_LOCKED, LOCKED].sort());
  });
});

describe('locked values in runs against a target that echoes everything back', () => {
  let vigil: TestVigil;
  let callers: Callers;
  let target: Server;
  let base = '';
  const seen: string[] = [];

  beforeAll(async () => {
    // Echoes the path, a header and the body, in the body and in a header.
    target = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const echo = `${request.url}|${String(request.headers['x-locked'] ?? '')}|${body}`;
        seen.push(echo);
        response.writeHead(200, { 'content-type': 'text/plain', 'x-echo': echo }).end(echo);
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
    callers = await setUp(vigil);
  });
  afterAll(async () => {
    await vigil?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  const definition = (groupId: string) => ({
    name: 'echo',
    checkType: 'API',
    groupId,
    request: {
      method: 'POST',
      url: `${base}/a/{{ACCOUNT_LOCKED}}/b/{{GROUP_LOCKED}}`,
      headers: [{ key: 'x-locked', value: '{{ACCOUNT_LOCKED}}+{{GROUP_LOCKED}}' }],
      bodyType: 'RAW',
      body: 'body={{ACCOUNT_LOCKED}}&group={{GROUP_LOCKED}}',
      // Both fail, so the echoed text is in each outcome's actual value and in the error message.
      assertions: [
        { source: 'TEXT_BODY', comparison: 'EQUALS', target: 'nothing' },
        { source: 'HEADERS', property: 'x-echo', comparison: 'EQUALS', target: 'nothing' },
      ],
    },
  });

  it('a READ_WRITE test run substitutes the values (the target gets them) and never shows them', async () => {
    const run = await callers.readWrite.post('/v1/checks/test', definition(callers.groupId));
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(seen.at(-1)).toBe(
      `/a/${LOCKED}/b/${GROUP_LOCKED}|${LOCKED}+${GROUP_LOCKED}|body=${LOCKED}&group=${GROUP_LOCKED}`,
    );
    expect(run.body.assertions.map((a: { passed: boolean }) => a.passed)).toEqual([false, false]);
    expect(run.body.assertions[0].actual).toContain(MASK);
    expect(leaks(run.body)).toEqual([]);
  });

  it('an ADMIN test run shows what the ADMIN may read', async () => {
    const run = await callers.admin.post('/v1/checks/test', definition(callers.groupId));
    expect(run.status).toBe(200);
    expect(leaks(run.body).sort()).toEqual([GROUP_LOCKED, LOCKED].sort());
  });

  it('a triggered run: neither its answer nor its stored result carries the values, for any role', async () => {
    const created = await callers.owner.post('/v1/checks', { ...definition(callers.groupId), locations: [] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkId = created.body.id as string;
    const triggered = await callers.readWrite.post(`/v1/checks/${checkId}/trigger`);
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(200);
    expect(seen.at(-1)).toContain(LOCKED);
    expect(leaks(triggered.body)).toEqual([]);
    const resultId = triggered.body.results[0].result.id as string;
    // Stored results are read by everyone in the account: scrubbed like secrets, even for ADMIN.
    for (const caller of [callers.readOnly, callers.readWrite, callers.admin]) {
      const list = await caller.get(`/v1/check-results/${checkId}`);
      expect(list.status).toBe(200);
      expect(list.body.items.map((item: { id: string }) => item.id)).toContain(resultId);
      expect(leaks(list.body)).toEqual([]);
      const one = await caller.get(`/v1/check-results/${checkId}/${resultId}`);
      expect(one.status).toBe(200);
      expect(one.body.errorMessage).toContain(MASK);
      expect(leaks(one.body)).toEqual([]);
      const analytics = await caller.get(`/v1/analytics/api-checks/${checkId}?metrics=responseTime&limit=10`);
      expect(analytics.status).toBe(200);
      expect(leaks(analytics.body)).toEqual([]);
    }
  });
});
