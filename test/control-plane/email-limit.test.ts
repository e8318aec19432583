import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// Schemathesis found the API refusing an email the OpenAPI document allowed (over 254 characters):
// the document and the server must state the same limit on every route that takes an email.
let vigil: TestVigil;
beforeAll(async () => {
  vigil = await startVigil();
}, 60_000);
afterAll(async () => vigil?.stop());

type Schema = { properties?: Record<string, { maxLength?: number }>; $ref?: string };

describe('email addresses', () => {
  it('are at most 254 characters, in the document and in the answer', async () => {
    const document = (await vigil.admin.get<Record<string, any>>('/openapi.json')).body;
    const bodyOf = (path: string): Schema => document.paths[path].post.requestBody.content['application/json'].schema;
    expect(bodyOf('/v1/users').properties?.email?.maxLength).toBe(254);
    expect(bodyOf('/v1/accounts').properties?.ownerEmail?.maxLength).toBe(254);

    const { owner } = await createAccount(vigil);
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`;
    expect(long.length).toBeGreaterThan(254);
    const refused = await owner.post('/v1/users', { email: long, role: 'READ_ONLY' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^email: /);
  });
});
