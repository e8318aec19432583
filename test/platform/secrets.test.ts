import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

const SECRET = 'sk_live_DO-NOT-LEAK-4f9c2a';

describe('secrets at rest (embedded)', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil();
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('never writes a secret variable or webhook secret in plaintext to any file in DATA_DIR', async () => {
    const a = await createAccount(vigil);
    await a.owner.post('/v1/variables', { key: 'STRIPE', value: SECRET, secret: true });
    await a.owner.post('/v1/variables', { key: 'MADE_SECRET', value: 'plain' });
    await a.owner.put('/v1/variables/MADE_SECRET', { value: `${SECRET}-2`, secret: true });
    await a.owner.post('/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'x', url: 'https://hooks.example.com', webhookSecret: `${SECRET}-hook` },
    });
    // A checkpoint is written on every WAL commit, but the WAL itself is part of the file set too.
    const files = readdirSync(vigil.dataDir)
      .map((name) => join(vigil.dataDir, name))
      .filter((path) => statSync(path).isFile());
    expect(files.some((path) => path.endsWith('events.sqlite'))).toBe(true);
    for (const path of files) expect(readFileSync(path).includes(SECRET), path).toBe(false);
    // The control: a non-secret value is in the same files, so the search itself works.
    expect(files.some((path) => readFileSync(path).includes('MADE_SECRET'))).toBe(true);
  });

  it('keeps the generated encryption key private (0600)', () => {
    expect(statSync(join(vigil.dataDir, 'encryption.key')).mode & 0o777).toBe(0o600);
  });
});
