import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

/**
 * A Playwright check through the dialect's single check routes, in the shapes the Go SDK sends
 * (go-sdk.test.ts drives the real SDK through the same): the code bundle key is a hash of the
 * unpacked files, so a check reads back the codeBundlePath it was created with, and a write naming
 * its own files' key needs no upload (the uploads are kept an hour).
 */
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let stranger: Awaited<ReturnType<typeof createAccount>>;
const dirs: string[] = [];

beforeAll(async () => {
  vigil = await startVigil();
  owner = await createAccount(vigil, 'team');
  stranger = await createAccount(vigil, 'team');
});
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await vigil?.stop();
});

const config = "export default { testDir: 'tests' };\n";
const spec = "import { test } from '@playwright/test';\ntest('home', async ({ page }) => {});\n";
const project = { 'playwright.config.ts': config, 'tests/home.spec.ts': spec };

/** The files as a tar.gz written by the system's tar, members in the order given. */
function tarGz(files: Record<string, string>, order = Object.keys(files)): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-pw-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return execFileSync('tar', ['czf', '-', '--format=ustar', '-C', dir, ...order]);
}

type Who = typeof owner;
async function upload(archive: Buffer, who: Who = owner) {
  const response = await fetch(`${vigil.url}/checkly/next/checkly-storage/upload-code-bundle`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${who.ownerKey}`,
      'x-checkly-account': who.accountId,
      'content-type': 'application/octet-stream',
    },
    body: new Uint8Array(archive),
  });
  return { status: response.status, body: (await response.json()) as { key: string; message?: string } };
}

const dialect = (who: Who = owner) => vigil.as(who.ownerKey, who.accountId);
const suite = (key: string, extra: Record<string, unknown> = {}) => ({
  name: 'Suite',
  frequency: 10,
  activated: true,
  locations: ['eu-west-1'],
  privateLocations: [],
  useGlobalAlertSettings: true,
  codeBundlePath: key,
  browsers: ['chromium'],
  testCommand: 'npx playwright test --config playwright.config.ts',
  cacheHash: '',
  playwrightVersion: null,
  ...extra,
});

describe('Playwright checks on /checkly/v1/checks/playwright', () => {
  it('the upload key is a hash of the files: the same files in another order give it, other content another', async () => {
    const first = await upload(tarGz(project));
    const again = await upload(tarGz(project, ['tests/home.spec.ts', 'playwright.config.ts']));
    const other = await upload(tarGz({ ...project, 'tests/home.spec.ts': `${spec}// changed\n` }));
    expect([first.status, again.status, other.status]).toEqual([200, 200, 200]);
    expect(first.body.key).toMatch(/^vigil-bundle-[0-9a-f]{64}$/);
    expect(again.body.key).toBe(first.body.key);
    expect(other.body.key).not.toBe(first.body.key);
  });

  it('create, get and update read back the codeBundlePath, Chromium and the command; /v1 holds the files', async () => {
    const { key } = (await upload(tarGz(project))).body;
    const created = await dialect().post('/checkly/v1/checks/playwright?autoAssignAlerts=false', suite(key));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      checkType: 'PLAYWRIGHT',
      codeBundlePath: key,
      browsers: ['chromium'],
      testCommand: 'npx playwright test --config playwright.config.ts',
    });
    const got = await dialect().get(`/checkly/v1/checks/${created.body.id}`);
    expect(got.body.codeBundlePath).toBe(key);
    const updated = await dialect().put(
      `/checkly/v1/checks/playwright/${created.body.id}`,
      suite(key, { frequency: 30 }),
    );
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ frequency: 30, codeBundlePath: key });
    const own = await owner.owner.get(`/v1/checks/${created.body.id}`);
    expect(own.body.files).toEqual([
      { path: 'playwright.config.ts', content: config },
      { path: 'tests/home.spec.ts', content: spec },
    ]);
  });

  it("a check's own files' key needs no upload; another key must have been uploaded by this account", async () => {
    const files = [
      { path: 'playwright.config.ts', content: config },
      { path: 'tests/own.spec.ts', content: spec },
    ];
    const made = await owner.owner.post('/v1/checks', { name: 'Own', checkType: 'PLAYWRIGHT', files });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const key = (await dialect().get(`/checkly/v1/checks/${made.body.id}`)).body.codeBundlePath as string;
    expect(key).toMatch(/^vigil-bundle-/);
    const kept = await dialect().put(`/checkly/v1/checks/playwright/${made.body.id}`, suite(key));
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect((await owner.owner.get(`/v1/checks/${made.body.id}`)).body.files).toEqual(files);
    const unknown = await dialect().put(
      `/checkly/v1/checks/playwright/${made.body.id}`,
      suite(`vigil-bundle-${'0'.repeat(64)}`),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/codeBundlePath: no uploaded code bundle/);
    // The owner's upload is not the stranger's, though the key is a hash anyone could compute.
    const owners = (await upload(tarGz(project))).body.key;
    const foreign = await dialect(stranger).post('/checkly/v1/checks/playwright', suite(owners));
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toMatch(/codeBundlePath: no uploaded code bundle/);
  });

  it('refuses, naming them, the suite fields a read could not give back, and suite fields on other types', async () => {
    const { key } = (await upload(tarGz(project))).body;
    const pinned = await dialect().post(
      '/checkly/v1/checks/playwright',
      suite(key, { playwrightVersion: '1.50.0', cacheHash: 'abc', script: 'x' }),
    );
    expect(pinned.status).toBe(400);
    expect(pinned.body.message).toMatch(/script: .*playwrightVersion: .*cacheHash: /);
    const api = await dialect().post('/checkly/v1/checks/api', {
      name: 'Api',
      request: { url: 'https://example.com', method: 'GET' },
      codeBundlePath: key,
    });
    expect(api.status).toBe(400);
    expect(api.body.message).toMatch(/codeBundlePath: only PLAYWRIGHT checks have one, not API/);
  });
});
