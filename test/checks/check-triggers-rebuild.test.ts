import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { rebuildReadModels } from '../../apps/projector/index.ts';

/** A trigger lives in the check's events: a rebuild of the read models gives it back whole. */
let vigil: TestVigil;
beforeAll(async () => {
  vigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
});
afterAll(async () => vigil?.stop());

describe('check triggers through a read-model rebuild', () => {
  it('keep their token, call count and Checkly id, and the URL still answers', async () => {
    const account = await createAccount(vigil, 'team');
    // A new client after the restart: the new process listens on a new port.
    const api = () => vigil.as(account.ownerKey, account.accountId);
    const check = await api().post('/v1/checks', {
      name: 'Deactivated, so only the trigger runs it',
      checkType: 'TCP',
      activated: false,
      request: { hostname: '127.0.0.1', port: 9 },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    const created = await api().post(`/v1/triggers/checks/${check.body.id}`);
    expect(created.status).toBe(201);
    // Private addresses are refused by the SSRF policy: the run fails at once and is still counted.
    expect((await fetch(`${vigil.url}${new URL(created.body.url).pathname}`)).status).toBe(200);
    const checkly = { authorization: `Bearer ${account.ownerKey}`, 'x-checkly-account': account.accountId };
    const readChecklyId = async () =>
      (
        (await (
          await fetch(`${vigil.url}/checkly/v1/triggers/checks/${check.body.id}`, { headers: checkly })
        ).json()) as {
          id: number;
        }
      ).id;
    const before = {
      trigger: (await api().get(`/v1/triggers/checks/${check.body.id}`)).body,
      id: await readChecklyId(),
    };
    expect(before.trigger.called).toBe(1);

    await vigil.running.lifecycle.stop();
    vigil = await startVigil({ dataDir: vigil.dataDir, keepData: true, env: { VIGIL_STANDALONE_APPS: 'api' } });
    await rebuildReadModels(vigil.running.platform, createLogger({ level: 'silent' }));

    const after = await api().get(`/v1/triggers/checks/${check.body.id}`);
    const { url: _before, ...same } = before.trigger;
    expect(after.body).toMatchObject(same);
    expect(await readChecklyId()).toBe(before.id);
    const path = `/v1/checks/${check.body.id}/trigger/${before.trigger.token}`;
    expect((await fetch(`${vigil.url}${path}`, { method: 'POST' })).status).toBe(200);
  });
});
