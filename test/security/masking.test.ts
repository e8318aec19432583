import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test-processes';
import { uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';
import { startReceiver, type Receiver } from '../alerting/receiver.ts';

// One masking rule: wherever a variable's value comes out (GET, lists, group variables, template
// previews and test sends) a caller sees what GET /v1/variables/{key} shows them. Real deliveries
// still render locked values, which are meant for templates.

const LOCKED = 'locked-plaintext-value';
const GROUP_LOCKED = 'group-locked-plaintext';
const MASK = '********';
const everything =
  '{"one":"{{ACCOUNT_LOCKED}}","group":"{{GROUP_LOCKED}}","all":"{{#each this}}{{@key}}={{this}};{{/each}}"}';

describe('one masking rule for locked values', () => {
  let vigil: TestVigil;
  let receiver: Receiver;
  let owner: ApiClient;
  let readWrite: ApiClient;
  let readOnly: ApiClient;
  let admin: ApiClient;
  let groupId: string;
  let checkId: string;
  let ingest: ApiClient;
  let accountId: string;

  beforeAll(async () => {
    vigil = await startVigil({ env: { VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', VIGIL_WEBHOOK_TIMEOUT_MS: '3000' } });
    receiver = await startReceiver();
    const account = await createAccount(vigil);
    owner = account.owner;
    accountId = account.accountId;
    ingest = vigil.as(vigil.ingestKey);
    const invite = async (role: string) => {
      const response = await owner.post('/v1/users', { email: `${role}-${uniqueSuffix()}@example.com`, role });
      return vigil.as(response.body.apiKey.key, account.accountId);
    };
    readWrite = await invite('READ_WRITE');
    readOnly = await invite('READ_ONLY');
    admin = await invite('ADMIN');
    expect((await owner.post('/v1/variables', { key: 'ACCOUNT_LOCKED', value: LOCKED, locked: true })).status).toBe(
      201,
    );
    expect((await owner.post('/v1/variables', { key: 'OPEN', value: 'open-value' })).status).toBe(201);
    const group = await owner.post('/v1/check-groups', {
      name: 'g',
      environmentVariables: [
        { key: 'GROUP_LOCKED', value: GROUP_LOCKED, locked: true },
        { key: 'GROUP_OPEN', value: 'group-open' },
      ],
    });
    expect(group.status).toBe(201);
    groupId = group.body.id;
    const check = await owner.post('/v1/checks', {
      name: 'in group',
      checkType: 'API',
      groupId,
      locations: ['eu-west-1'],
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    checkId = check.body.id;
  });
  afterAll(async () => {
    await receiver?.close();
    await vigil?.stop();
  });

  it('the rule itself: GET /v1/variables/{key} masks a locked value for READ_WRITE and READ_ONLY', async () => {
    expect((await readWrite.get('/v1/variables/ACCOUNT_LOCKED')).body.value).toBe(MASK);
    expect((await readOnly.get('/v1/variables/ACCOUNT_LOCKED')).body.value).toBe(MASK);
    expect((await admin.get('/v1/variables/ACCOUNT_LOCKED')).body.value).toBe(LOCKED);
  });

  describe('check groups (defect 3)', () => {
    it('GET one and the list mask locked group variables below ADMIN', async () => {
      for (const caller of [readWrite, readOnly]) {
        const one = await caller.get(`/v1/check-groups/${groupId}`);
        expect(one.status).toBe(200);
        expect(one.body.environmentVariables).toEqual([
          { key: 'GROUP_LOCKED', value: MASK, locked: true },
          { key: 'GROUP_OPEN', value: 'group-open', locked: false },
        ]);
        const list = await caller.get('/v1/check-groups');
        expect(JSON.stringify(list.body)).not.toContain(GROUP_LOCKED);
        expect(list.body.find((g: { id: string }) => g.id === groupId).environmentVariables[0].value).toBe(MASK);
      }
      for (const caller of [owner, admin]) {
        const one = await caller.get(`/v1/check-groups/${groupId}`);
        expect(one.body.environmentVariables[0].value).toBe(GROUP_LOCKED);
      }
    });

    it('a READ_WRITE caller that PUTs back the masked group keeps the stored value', async () => {
      const seen = (await readWrite.get(`/v1/check-groups/${groupId}`)).body;
      const { id: _id, ...body } = seen;
      const put = await readWrite.put(`/v1/check-groups/${groupId}`, { ...body, name: 'renamed' });
      expect(put.status).toBe(200);
      expect(JSON.stringify(put.body)).not.toContain(GROUP_LOCKED);
      const stored = (await owner.get(`/v1/check-groups/${groupId}`)).body;
      expect(stored.name).toBe('renamed');
      expect(stored.environmentVariables[0].value).toBe(GROUP_LOCKED);
    });
  });

  describe('templates (defect 2)', () => {
    const preview = (caller: ApiClient, extra: Record<string, unknown> = {}) =>
      caller.post('/v1/alert-channels/preview', {
        config: {
          name: 'p',
          url: 'https://example.com/hook?l={{ACCOUNT_LOCKED}}',
          headers: [{ key: 'X-Locked', value: '{{ACCOUNT_LOCKED}} {{GROUP_LOCKED}}' }],
          queryParameters: [{ key: 'g', value: '{{GROUP_LOCKED}}' }],
          template: everything,
        },
        checkId,
        ...extra,
      });

    it('preview renders masked values for a READ_WRITE caller, in the URL, headers, query and body', async () => {
      const response = await preview(readWrite);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(LOCKED);
      expect(text).not.toContain(GROUP_LOCKED);
      const body = JSON.parse(response.body.body);
      expect(body.one).toBe(MASK);
      expect(body.group).toBe(MASK);
      expect(body.all).toContain('OPEN=open-value');
      expect(body.all).toContain(`ACCOUNT_LOCKED=${MASK}`);
    });

    it('preview renders the plaintext for a caller who may read it (ADMIN)', async () => {
      const response = await preview(admin);
      const body = JSON.parse(response.body.body);
      expect(body.one).toBe(LOCKED);
      expect(body.group).toBe(GROUP_LOCKED);
    });

    it('a test send by READ_WRITE sends and shows masked values; a real delivery renders the real ones', async () => {
      const channel = await owner.post('/v1/alert-channels', {
        config: { name: 'hook', url: `${receiver.url}/hook`, template: everything },
      });
      expect(channel.status).toBe(201);
      const test = await readWrite.post(`/v1/alert-channels/${channel.body.id}/test`);
      expect(test.status, JSON.stringify(test.body)).toBe(200);
      expect(test.body.outcome).toBe('delivered');
      expect(JSON.stringify(test.body)).not.toContain(LOCKED);
      const sent = receiver.received.at(-1)!;
      expect(sent.body).not.toContain(LOCKED);
      expect(JSON.parse(sent.body).one).toBe(MASK);

      // A real alert on the check in the group: locked values are meant for templates.
      expect(
        (await owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, { checkId, activated: true })).status,
      ).toBe(200);
      const result = (minutes: number, hasFailures: boolean) => ({
        id: randomUUID(),
        accountId,
        checkId,
        checkType: 'API',
        startedAt: new Date(Date.now() - (10 - minutes) * 60_000).toISOString(),
        runLocation: 'eu-west-1',
        hasFailures,
        responseTime: 100,
        statusCode: hasFailures ? 500 : 200,
      });
      expect((await ingest.post('/v1/check-results', [result(0, false)])).body.accepted).toBe(1);
      expect((await ingest.post('/v1/check-results', [result(1, true)])).body.accepted).toBe(1);
      const real = await eventually(
        async () => receiver.received.filter((r) => r.body.includes(LOCKED)),
        (list) => list.length > 0,
        20_000,
      );
      const body = JSON.parse(real[0]!.body);
      expect(body.one).toBe(LOCKED);
      expect(body.group).toBe(GROUP_LOCKED);
    });
  });
});
