import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

/**
 * The constructs issue 28 added to `checkly deploy` (Playwright check suites and their code bundle
 * upload, private locations, status pages), at the HTTP level in the shapes checkly 9.5.0 sends
 * (captured with `checkly debug parse-project`): what is refused, naming it, and that nothing of a
 * refused deploy is applied. project.test.ts drives the real CLI through the same constructs.
 */
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let stranger: Awaited<ReturnType<typeof createAccount>>;
let readOnlyKey: string;

beforeAll(async () => {
  vigil = await startVigil();
  owner = await createAccount(vigil, 'team');
  stranger = await createAccount(vigil, 'team');
  readOnlyKey = (await owner.owner.post('/v1/users', { email: `ro-${Date.now()}@example.com`, role: 'READ_ONLY' })).body
    .apiKey.key;
});
afterAll(async () => vigil?.stop());

type Who = { key: string; accountId: string };
const as = (who: 'owner' | 'stranger' | 'readOnly'): Who =>
  who === 'owner'
    ? { key: owner.ownerKey, accountId: owner.accountId }
    : who === 'stranger'
      ? { key: stranger.ownerKey, accountId: stranger.accountId }
      : { key: readOnlyKey, accountId: owner.accountId };

async function deploy(body: unknown, query = 'dryRun=false', who = as('owner')) {
  const response = await fetch(`${vigil.url}/checkly/v1/projects/deploy?${query}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${who.key}`,
      'x-checkly-account': who.accountId,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    },
    body: gzipSync(JSON.stringify(body)),
  });
  return { status: response.status, body: (await response.json()) as { message?: string; diff?: unknown[] } };
}

/** A ustar archive of the given files, gzipped, as the CLI's archiver writes it. */
function tarGz(files: Record<string, string | Buffer>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const body = Buffer.from(content);
    const header = Buffer.alloc(512);
    header.write(name, 0, 100, 'utf8');
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(body.length.toString(8).padStart(11, '0') + '\0', 124);
    header.write('00000000000\0', 136);
    header.write('0', 156);
    header.write('ustar\0' + '00', 257);
    header.fill(' ', 148, 156);
    const sum = header.reduce((total, byte) => total + byte, 0);
    header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

async function upload(archive: Buffer, who = as('owner')) {
  const response = await fetch(`${vigil.url}/checkly/next/checkly-storage/upload-code-bundle`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${who.key}`,
      'x-checkly-account': who.accountId,
      'content-type': 'application/octet-stream',
    },
    body: archive,
  });
  return { status: response.status, body: (await response.json()) as { key?: string; message?: string } };
}

const spec =
  "import { test } from '@playwright/test'\ntest('home', async ({ page }) => { await page.goto('https://example.com') })\n";
const project = {
  'playwright.config.ts': "import { defineConfig } from '@playwright/test'\nexport default defineConfig({})\n",
  'tests/home.spec.ts': spec,
};
const suite = (key: string, extra: Record<string, unknown> = {}) => ({
  logicalId: 'pw-suite',
  type: 'check',
  member: true,
  payload: {
    name: 'Suite',
    locations: ['eu-west-1'],
    frequency: 10,
    doubleCheck: false,
    useGlobalAlertSettings: true,
    runParallel: false,
    environmentVariables: [],
    checkType: 'PLAYWRIGHT',
    codeBundlePath: key,
    browsers: ['chromium'],
    cacheHash: 'f'.repeat(64),
    playwrightVersion: '1.56.1',
    testCommand: 'npx playwright test --config playwright.config.ts',
    workingDir: '.',
    // The runtime whose Playwright (1.56.1) the project pins.
    runtimeId: '2026.04',
    ...extra,
  },
});
const tcpPayload = {
  name: 'DB',
  checkType: 'TCP',
  locations: ['eu-west-1'],
  groupId: null,
  request: { hostname: 'db.example.com', port: 5432 },
};
const body = (...resources: unknown[]) => ({ project: { logicalId: 'site', name: 'Site' }, resources });

describe('Playwright check suites: the code bundle', () => {
  it('an uploaded bundle becomes the check’s files; another account cannot name its key', async () => {
    const uploaded = await upload(tarGz(project));
    expect(uploaded.status).toBe(200);
    const key = uploaded.body.key!;
    expect((await upload(tarGz(project), as('readOnly'))).status).toBe(403);
    const foreign = await deploy(body(suite(key)), 'dryRun=true', as('stranger'));
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('check "pw-suite": codeBundlePath: no uploaded code bundle');

    expect((await deploy(body(suite(key)))).status).toBe(202);
    const checks = (await owner.owner.get('/v1/checks')).body as Array<{ name: string; files?: unknown }>;
    expect(checks.find((check) => check.name === 'Suite')?.files).toEqual([
      { path: 'playwright.config.ts', content: project['playwright.config.ts'] },
      { path: 'tests/home.spec.ts', content: spec },
    ]);
    expect((await deploy(body())).status).toBe(202);
  });

  it('refuses what Vigil cannot keep or run, naming it', async () => {
    const binary = await upload(tarGz({ ...project, 'logo.png': Buffer.from([0x89, 0x50, 0xff, 0xfe, 0x00]) }));
    expect(binary.status).toBe(400);
    expect(binary.body.message).toContain('logo.png is not UTF-8 text');
    const noTests = await upload(tarGz({ 'README.md': 'hello' }));
    expect(noTests.status).toBe(400);
    expect(noTests.body.message).toContain('codeBundle');
    expect((await upload(Buffer.from('not gzip'))).body.message).toContain('not a gzip tar archive');
    const huge = await upload(tarGz({ ...project, 'tests/big.spec.ts': 'x'.repeat(3 * 1024 * 1024) }));
    expect(huge.status).toBe(413);

    const key = (await upload(tarGz(project))).body.key!;
    const refused = await deploy(
      body(
        suite(key, {
          testCommand: "npx playwright test --config playwright.config.ts --project 'firefox'",
          installCommand: 'npm ci',
          browsers: ['chromium', 'firefox'],
        }),
      ),
    );
    expect(refused.status).toBe(400);
    for (const field of ['testCommand', 'installCommand', 'browsers: Vigil runs Chromium only, not firefox'])
      expect(refused.body.message).toContain(field);
    // Vigil runs the runtime's Playwright and installs none: another pin is named, with the runtime's.
    const pinned = await deploy(body(suite(key, { playwrightVersion: '1.40.0' })), 'dryRun=true');
    expect(pinned.status).toBe(400);
    expect(pinned.body.message).toMatch(
      /check "pw-suite": playwrightVersion: the project pins @playwright\/test 1\.40\.0, but the check runs on runtime \S+, which has 1\.56\.1/,
    );
  });
});

describe('check payloads', () => {
  it('names a field the CLI sends that Vigil would otherwise drop; a script path alone is taken', async () => {
    const script = "import { test } from '@playwright/test'\ntest('x', async () => {})\n";
    const browser = (extra: Record<string, unknown>) => ({
      logicalId: 'home-browser',
      type: 'check',
      member: true,
      payload: { name: 'Home', checkType: 'BROWSER', locations: ['eu-west-1'], groupId: null, script, ...extra },
    });
    const refused = await deploy(
      body(
        browser({
          scriptPath: 'home.spec.ts',
          dependencies: [{ path: 'helpers.ts', content: 'export const a = 1\n' }],
          snapshots: [{ key: 'k', path: 'home.png' }],
        }),
        {
          logicalId: 'db',
          type: 'check',
          member: true,
          payload: { ...tcpPayload, request: { ...tcpPayload.request, tls: true }, aiAutoRepairEnabled: true },
        },
      ),
      'dryRun=true',
    );
    expect(refused.status).toBe(400);
    for (const named of [
      'check "home-browser": dependencies: a Vigil browser or multi-step check runs one script',
      'snapshots',
      'check "db": ',
      'aiAutoRepairEnabled',
      'tls',
    ])
      expect(refused.body.message).toContain(named);
    const taken = await deploy(body(browser({ scriptPath: 'home.spec.ts', dependencies: [] })), 'dryRun=true');
    expect(taken.status).toBe(200);
  });
});

describe('private locations and status pages', () => {
  const location = {
    logicalId: 'office',
    type: 'private-location',
    member: true,
    payload: { name: 'Office', slugName: 'office-hq', icon: 'location' },
  };
  const api = {
    logicalId: 'orders-api',
    type: 'check',
    member: true,
    payload: {
      name: 'Orders API',
      checkType: 'API',
      locations: ['eu-west-1'],
      groupId: null,
      request: { method: 'GET', url: 'https://example.com' },
      triggerIncident: {
        severity: 'MAJOR',
        name: 'Orders down',
        description: 'x',
        notifySubscribers: false,
        serviceId: { ref: 'orders-service' },
      },
    },
  };
  const assignment = {
    logicalId: 'private-location-check-assignment#orders-api#office',
    type: 'private-location-check-assignment',
    member: true,
    payload: { privateLocationId: { ref: 'office' }, checkId: { ref: 'orders-api' } },
  };
  const service = {
    logicalId: 'orders-service',
    type: 'status-page-service',
    member: true,
    payload: { name: 'Orders' },
  };
  const page = (extra: Record<string, unknown> = {}) => ({
    logicalId: 'status',
    type: 'status-page',
    member: true,
    payload: {
      name: 'Site status',
      url: `site-status-${process.pid}`,
      cards: [{ name: 'Site status', services: [{ ref: 'orders-service' }] }],
      ...extra,
    },
  });

  it('an existing location named by id (PrivateLocation.fromId) is assigned, not owned', async () => {
    const existing = (await owner.owner.post('/v1/private-locations', { name: 'Lab', slugName: 'lab' })).body as {
      id: string;
    };
    const ref = {
      logicalId: `private-location-${existing.id}`,
      type: 'private-location',
      member: false,
      physicalId: existing.id,
      payload: null,
    };
    const named = { ...assignment, payload: { ...assignment.payload, privateLocationId: { ref: ref.logicalId } } };
    const { triggerIncident: _t, ...plain } = api.payload;
    expect((await deploy(body(ref, { ...api, payload: plain }, named))).status).toBe(202);
    const checks = (await owner.owner.get('/v1/checks')).body as Array<{ name: string; locations: string[] }>;
    expect(checks.find((check) => check.name === 'Orders API')?.locations).toEqual(['eu-west-1', 'lab']);
    expect((await deploy(body())).status).toBe(202);
    expect(((await owner.owner.get('/v1/private-locations')).body as Array<{ id: string }>).map((l) => l.id)).toEqual([
      existing.id,
    ]);
    expect((await deploy(body(ref), 'dryRun=true', as('stranger'))).body.message).toContain(
      `private location ${existing.id} not found`,
    );
  });

  it('refuses what a Vigil location or page cannot honour, naming each; nothing of the deploy is applied', async () => {
    const before = await Promise.all(
      ['/v1/checks', '/v1/private-locations', '/v1/status-pages'].map(
        async (path) => (await owner.owner.get(path)).body,
      ),
    );
    const refused = await deploy(
      body(
        { ...location, payload: { ...location.payload, proxyUrl: 'http://proxy.internal:3128' } },
        api,
        assignment,
        service,
        page({ logo: 'https://example.com/logo.png', cards: [{ name: 'A' }, { name: 'B' }] }),
        {
          logicalId: 'v3',
          type: 'status-page',
          member: true,
          payload: { name: 'V3', url: 'v3-page', cards: [], version: 3 },
        },
        { logicalId: 'grp', type: 'private-location-group-assignment', member: true, payload: {} },
        {
          ...api,
          logicalId: 'notify',
          payload: { ...api.payload, triggerIncident: { ...api.payload.triggerIncident, notifySubscribers: true } },
        },
      ),
    );
    expect(refused.status).toBe(400);
    for (const named of [
      'private-location "office": proxyUrl',
      'status-page "status": logo',
      'cards: a Vigil status page is one list of checks',
      'status-page "v3": version',
      'private-location-group-assignment "grp": privateLocationId, groupId: must refer to constructs of this project',
      'check "notify": triggerIncident.notifySubscribers',
    ])
      expect(refused.body.message).toContain(named);
    const after = await Promise.all(
      ['/v1/checks', '/v1/private-locations', '/v1/status-pages'].map(
        async (path) => (await owner.owner.get(path)).body,
      ),
    );
    expect(after).toEqual(before);
  });

  it('a location checks run in keeps its slug: a rename in place is refused, a new logicalId moves them', async () => {
    const { triggerIncident: _t, ...plain } = api.payload;
    const check = { ...api, payload: plain };
    expect((await deploy(body(location, check, assignment))).status).toBe(202);
    const renamed = { ...location, payload: { ...location.payload, slugName: 'office-hq2' } };
    const refused = await deploy(body(renamed, check, assignment));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('private-location "office": slugName: checks run in "office-hq"');
    const moved = { ...renamed, logicalId: 'office2' };
    const reassigned = {
      ...assignment,
      logicalId: 'a2',
      payload: { ...assignment.payload, privateLocationId: { ref: 'office2' } },
    };
    expect((await deploy(body(moved, check, reassigned))).status).toBe(202);
    const locations = (await owner.owner.get('/v1/private-locations')).body as Array<{ slugName: string }>;
    expect(locations.map((l) => l.slugName).sort()).toEqual(['lab', 'office-hq2']);
    const checks = (await owner.owner.get('/v1/checks')).body as Array<{ name: string; locations: string[] }>;
    expect(checks.find((c) => c.name === 'Orders API')?.locations).toEqual(['eu-west-1', 'office-hq2']);
    expect((await deploy(body())).status).toBe(202);
  });

  it('a location assigned to a group is among the group’s locations, on a dry run and a deploy', async () => {
    const group = { logicalId: 'core', type: 'check-group', member: true, payload: { name: 'Core', v: 2 } };
    const grouped = {
      logicalId: 'private-location-group-assignment#core#office',
      type: 'private-location-group-assignment',
      member: true,
      payload: { privateLocationId: { ref: 'office' }, groupId: { ref: 'core' } },
    };
    expect((await deploy(body(location, group, grouped), 'dryRun=true')).status).toBe(200);
    expect((await deploy(body(location, group, grouped))).status).toBe(202);
    const groups = (await owner.owner.get('/v1/check-groups')).body as Array<{ name: string; locations: string[] }>;
    expect(groups.find((g) => g.name === 'Core')?.locations).toEqual(['office-hq']);
    // Unchanged: nothing to write, so the same answer again.
    expect((await deploy(body(location, group, grouped))).status).toBe(202);
    expect((await owner.owner.get('/v1/check-groups')).body).toEqual(groups);
    expect((await deploy(body())).status).toBe(202);
  });

  it('a dry run decides a new location, its checks and a page without writing any', async () => {
    const dry = await deploy(body(location, api, assignment, service, page()), 'dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body.diff).toEqual(
      expect.arrayContaining([
        { type: 'private-location', logicalId: 'office', physicalId: null, action: 'CREATE' },
        { type: 'status-page', logicalId: 'status', physicalId: null, action: 'CREATE' },
      ]),
    );
    expect(((await owner.owner.get('/v1/private-locations')).body as unknown[]).length).toBe(1);
    expect((await owner.owner.get('/v1/status-pages')).body).toEqual([]);
  });
});
