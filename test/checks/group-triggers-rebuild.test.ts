import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { rebuildReadModels } from '../../apps/projector/index.ts';
import { numericId } from '../../apps/api/src/checkly/ids.ts';

/**
 * A group trigger lives in the group's events: a rebuild of the read models gives it back whole,
 * and the token-digest index behind Checkly's URL (which names no account) is rebuilt with it.
 */
let vigil: TestVigil;
beforeAll(async () => {
  vigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
});
afterAll(async () => vigil?.stop());

describe('group triggers through a read-model rebuild', () => {
  it("keep their token, call count and Checkly ids, and both URLs still run the group's checks", async () => {
    const account = await createAccount(vigil, 'team');
    // A new client after the restart: the new process listens on a new port.
    const api = () => vigil.as(account.ownerKey, account.accountId);
    const group = await api().post('/v1/check-groups', { name: 'Rebuilt' });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const check = await api().post('/v1/checks', {
      name: 'Deactivated checks are left out, so this one runs',
      checkType: 'TCP',
      groupId: group.body.id,
      request: { hostname: '127.0.0.1', port: 9 },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    const created = await api().post(`/v1/triggers/check-groups/${group.body.id}`);
    expect(created.status).toBe(201);
    // Private addresses are refused by the SSRF policy: the run fails at once and is still counted.
    const first = await fetch(`${vigil.url}${new URL(created.body.url).pathname}`);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { results: unknown[] }).results).toHaveLength(1);
    const checkly = { authorization: `Bearer ${account.ownerKey}`, 'x-checkly-account': account.accountId };
    const numeric = numericId(group.body.id);
    const readChecklyIds = async () =>
      (await (
        await fetch(`${vigil.url}/checkly/v1/triggers/check-groups/${numeric}`, { headers: checkly })
      ).json()) as { id: number; groupId: number };
    const before = {
      trigger: (await api().get(`/v1/triggers/check-groups/${group.body.id}`)).body,
      ids: await readChecklyIds(),
    };
    expect(before.trigger.called).toBe(1);

    await vigil.running.lifecycle.stop();
    vigil = await startVigil({ dataDir: vigil.dataDir, keepData: true, env: { VIGIL_STANDALONE_APPS: 'api' } });
    await rebuildReadModels(vigil.running.platform, createLogger({ level: 'silent' }));

    const after = await api().get(`/v1/triggers/check-groups/${group.body.id}`);
    const { url: _before, ...same } = before.trigger;
    expect(after.body).toMatchObject(same);
    expect(await readChecklyIds()).toEqual(before.ids);
    const own = await fetch(`${vigil.url}/v1/check-groups/${group.body.id}/trigger/${before.trigger.token}`, {
      method: 'POST',
    });
    expect(own.status).toBe(200);
    // Checkly's URL resolves through the rebuilt digest index: the run fails (SSRF), so 503.
    const sdk = await fetch(`${vigil.url}/checkly/check-groups/${numeric}/trigger/${before.trigger.token}`);
    expect(sdk.status).toBe(503);
    // (No projector runs after the restart, so the new calls' counts are not read back here.)
  });
});
