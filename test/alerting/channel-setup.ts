import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createAccount, type TestVigil } from '#test-vigil';

const base = Date.parse('2026-11-25T10:00:00Z');
export const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();

/** An account with one API check subscribed to one channel of the given type, and a way to post its results. */
export async function channelSetup(vigil: TestVigil, channel: Record<string, unknown>, alertSettings?: unknown) {
  const account = await createAccount(vigil);
  if (alertSettings) await account.owner.patch('/v1/accounts/me', { alertSettings });
  const check = (
    await account.owner.post('/v1/checks', {
      name: 'Checkout API',
      checkType: 'API',
      tags: ['prod'],
      locations: ['eu-west-1'],
    })
  ).body as { id: string };
  const created = await account.owner.post('/v1/alert-channels', channel);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const subscribed = await account.owner.put(`/v1/alert-channels/${created.body.id}/subscriptions`, {
    checkId: check.id,
    activated: true,
  });
  expect(subscribed.status).toBe(200);
  const send = async (minutes: number, failing: boolean) => {
    const response = await vigil.as(vigil.ingestKey).post('/v1/check-results', [
      {
        id: randomUUID(),
        accountId: account.accountId,
        checkId: check.id,
        checkType: 'API',
        startedAt: at(minutes),
        runLocation: 'eu-west-1',
        hasFailures: failing,
        responseTime: failing ? 812 : 120,
        statusCode: failing ? 503 : 200,
        ...(failing ? { statusText: 'Service Unavailable', errorMessage: 'expected 200, got 503' } : {}),
      },
    ]);
    expect(response.body.accepted, JSON.stringify(response.body)).toBe(1);
  };
  return { account, check, channel: created.body as { id: string; config: Record<string, unknown> }, send };
}

export const json = (body: string) => JSON.parse(body) as Record<string, any>;
