import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { streamNames } from '#domain';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { checklyHarness, installChecklyCli, type ChecklyHarness } from './support.ts';

/**
 * `checkly deploy`, `deploy --preview` and `destroy` by the real CLI against Vigil, read back
 * through Vigil's own /v1 each time (issue 28, projects).
 */
vi.setConfig({ testTimeout: 180_000 });
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let checkly: ChecklyHarness;
let project: string;

const config =
  "import { defineConfig } from 'checkly'\n" +
  "export default defineConfig({ projectName: 'Website', logicalId: 'website',\n" +
  "  checks: { checkMatch: '**/*.check.ts', frequency: 10, locations: ['eu-west-1'] } })\n";
/** What a deploy declares; the "change one field" step changes one of each new construct's. */
interface Variant {
  ordersUrl: string;
  dnsQuery: string;
  officeName: string;
  pageName: string;
  pwTitle: string;
}
const initial: Variant = {
  ordersUrl: 'https://api.example.com/orders',
  dnsQuery: 'example.com',
  officeName: 'Office',
  pageName: 'Acme status',
  pwTitle: 'home',
};
const pwSpec = (title: string) =>
  `import { test } from '@playwright/test'\ntest('${title}', async ({ page }) => { await page.goto('https://example.com') })\n`;
const constructs = ({ ordersUrl, dnsQuery, officeName, pageName }: Variant) =>
  'import { ApiCheck, AssertionBuilder, CheckGroupV2, EmailAlertChannel, HeartbeatMonitor, TcpMonitor,\n' +
  '  UrlMonitor, UrlAssertionBuilder, WebhookAlertChannel, BrowserCheck, MultiStepCheck, MaintenanceWindow,\n' +
  '  DnsMonitor, DnsAssertionBuilder, PlaywrightCheck, PrivateLocation, StatusPage, StatusPageService\n' +
  "  } from 'checkly/constructs'\n" +
  `const office = new PrivateLocation('office', { name: '${officeName}', slugName: 'office-berlin', icon: 'location' })\n` +
  "const ordersService = new StatusPageService('orders-service', { name: 'Orders' })\n" +
  `new StatusPage('status', { name: '${pageName}', url: 'acme-status-${process.pid}',\n` +
  `  cards: [{ name: '${pageName}', services: [ordersService] }] })\n` +
  `new DnsMonitor('resolver', { name: 'Resolver', request: { recordType: 'AAAA', query: '${dnsQuery}',\n` +
  "  assertions: [DnsAssertionBuilder.responseCode().equals('NOERROR')] } })\n" +
  // The runtime whose Playwright the project's lockfile pins (built from that runtime's lockfile).
  "new PlaywrightCheck('pw-suite', { name: 'Suite', playwrightConfigPath: './playwright.config.ts',\n" +
  "  runtimeId: '2026.04' })\n" +
  "new BrowserCheck('home-browser', { name: 'Home page', code: { content: \"import { test } from '@playwright/test'\\n\" +\n" +
  "  \"test('home', async ({ page }) => { await page.goto('https://example.com') })\\n\" } })\n" +
  "new MultiStepCheck('flow', { name: 'Flow', code: { content: \"import { test } from '@playwright/test'\\n\" +\n" +
  "  \"test('flow', async ({ request }) => { await request.get('https://example.com') })\\n\" } })\n" +
  "new MaintenanceWindow('nightly-window', { name: 'Nightly', tags: ['shop'], startsAt: new Date('2030-01-01T02:00:00Z'),\n" +
  "  endsAt: new Date('2030-01-01T03:00:00Z'), repeatInterval: 1, repeatUnit: 'DAY' })\n" +
  "const email = new EmailAlertChannel('ops-email', { address: 'ops@example.com', sendDegraded: true })\n" +
  "const hook = new WebhookAlertChannel('ops-hook', { name: 'Ops hook', url: 'https://hooks.example.com/vigil',\n" +
  "  method: 'POST' })\n" +
  "const core = new CheckGroupV2('core', { name: 'Core', tags: ['shop'], alertChannels: [hook],\n" +
  '  privateLocations: [office] })\n' +
  "new ApiCheck('orders-api', { name: 'Orders API', group: core, alertChannels: [email], privateLocations: [office],\n" +
  "  triggerIncident: { service: ordersService, severity: 'MAJOR', name: 'Orders down', description: 'Orders fail',\n" +
  "  notifySubscribers: false }, request: { method: 'GET',\n" +
  `  url: '${ordersUrl}', assertions: [AssertionBuilder.statusCode().equals(200)] } })\n` +
  "new TcpMonitor('db-tcp', { name: 'DB', request: { hostname: 'db.example.com', port: 5432 } })\n" +
  "new UrlMonitor('home-url', { name: 'Home', request: { url: 'https://example.com',\n" +
  '  assertions: [UrlAssertionBuilder.statusCode().equals(200)] } })\n' +
  "new HeartbeatMonitor('nightly', { name: 'Nightly', period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' })\n";

type Row = { id: string; name: string; tags: string[]; updatedAt?: string; [key: string]: unknown };
async function readBack() {
  const checks = (await owner.owner.get('/v1/checks')).body as Row[];
  const groups = (await owner.owner.get('/v1/check-groups')).body as Row[];
  const channels = ((await owner.owner.get('/v1/alert-channels')).body as Row[]).sort((a, b) =>
    a.id.localeCompare(b.id),
  );
  const windows = (await owner.owner.get('/v1/maintenance-windows')).body as Row[];
  const locations = (await owner.owner.get('/v1/private-locations')).body as Row[];
  const pages = (await owner.owner.get('/v1/status-pages')).body as Row[];
  const checksByName = [...checks].sort((a, b) => a.name.localeCompare(b.name));
  return { checks: checksByName, groups, channels, windows, locations, pages };
}
/** Events recorded on the project's checks and groups: an unchanged deploy adds none. */
async function eventCount(state: Awaited<ReturnType<typeof readBack>>): Promise<number> {
  const store = vigil.running.platform.eventStore;
  const streams = [
    ...state.checks.map((check) => streamNames.check(check.id)),
    ...state.groups.map((group) => streamNames.checkGroup(group.id)),
    ...state.channels.map((channel) => streamNames.alertChannel(channel.id)),
    ...state.windows.map((window) => streamNames.maintenanceWindow(window.id)),
    ...state.locations.map((location) => streamNames.privateLocation(location.id)),
    ...state.pages.map((page) => streamNames.statusPage(page.id)),
  ];
  const events = await Promise.all(streams.map((stream) => store.readStream(stream)));
  return events.reduce((sum, list) => sum + list.length, 0);
}

/**
 * The CLI bundles a PlaywrightCheck's project: it loads playwright.config.ts (so @playwright/test
 * must resolve; it comes from the runtime that runs the CLI) and reads the version from the
 * project's package-lock.json, built here from the runtime's committed lockfile.
 */
async function playwrightProject(cli: Awaited<ReturnType<typeof installChecklyCli>>) {
  const modules = join(project, 'node_modules');
  await mkdir(modules);
  for (const entry of await readdir(cli.modules)) await symlink(join(cli.modules, entry), join(modules, entry));
  const runtimeModules = join(cli.node, '..', '..', '..');
  for (const name of ['@playwright', 'playwright', 'playwright-core'])
    await symlink(join(runtimeModules, name), join(modules, name)).catch(() => undefined);
  const runtimeLock = JSON.parse(
    await readFile(new URL('../../runtimes/2026.04/package-lock.json', import.meta.url), 'utf8'),
  );
  const dev = { '@playwright/test': runtimeLock.packages['node_modules/@playwright/test'].version };
  const packages: Record<string, unknown> = { '': { name: 'website', devDependencies: dev } };
  for (const name of ['@playwright/test', 'playwright', 'playwright-core'])
    packages[`node_modules/${name}`] = { ...runtimeLock.packages[`node_modules/${name}`], dev: true };
  const manifest = { name: 'website', private: true, type: 'module', devDependencies: dev };
  await writeFile(join(project, 'package.json'), JSON.stringify(manifest) + '\n');
  await writeFile(
    join(project, 'package-lock.json'),
    JSON.stringify({ name: 'website', lockfileVersion: 3, requires: true, packages }),
  );
  await writeFile(
    join(project, 'playwright.config.ts'),
    "import { defineConfig } from '@playwright/test'\nexport default defineConfig({ testDir: './tests' })\n",
  );
  await mkdir(join(project, 'tests'));
  await writeFile(join(project, 'tests', 'home.spec.ts'), pwSpec(initial.pwTitle));
}

beforeAll(async () => {
  const [cli, started] = await Promise.all([installChecklyCli(), startVigil()]);
  vigil = started;
  owner = await createAccount(vigil, 'team');
  checkly = await checklyHarness(cli, vigil.url, { apiKey: owner.ownerKey, accountId: owner.accountId });
  project = await mkdtemp(join(tmpdir(), 'vigil-checkly-project-'));
  await playwrightProject(cli);
  await writeFile(join(project, 'checkly.config.ts'), config);
  await writeFile(join(project, 'site.check.ts'), constructs(initial));
}, 600_000);
afterAll(async () => {
  await checkly?.close();
  await vigil?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('checkly deploy, deploy --preview and destroy', () => {
  let first: Awaited<ReturnType<typeof readBack>>;
  let outsider: Row;
  let outsiderChannel: Row;

  it('deploys a project: API, TCP, URL, DNS, heartbeat, browser, multi-step and Playwright checks, a group, channels, subscriptions, a window, a private location and a status page, marked as the project’s', async () => {
    // Something the project does not own, which destroy must leave alone.
    outsider = (await owner.owner.post('/v1/checks', { name: 'Outsider', checkType: 'HEARTBEAT' })).body as Row;
    const oncall = { type: 'EMAIL', config: { name: 'On call', address: 'oncall@example.com' } };
    outsiderChannel = (await owner.owner.post('/v1/alert-channels', oncall)).body as Row;
    expect(outsiderChannel.id).toBeTruthy();
    const run = await checkly.cli(['deploy', '--force'], {}, project);
    expect(run.stderr + run.stdout).toContain('Successfully deployed project "Website"');
    // The CLI then reads each heartbeat check back for its ping URL.
    expect(run.stdout).toMatch(/Ping URL of heartbeat check Nightly is http:\/\/\S+\/ping\/\S+/);
    expect(run.code).toBe(0);
    first = await readBack();
    const mine = first.checks.filter((check) => check.tags.includes('vigil:project=website'));
    expect(mine.map((check) => [check.name, check.checkType])).toEqual([
      ['DB', 'TCP'],
      ['Flow', 'MULTI_STEP'],
      ['Home', 'URL'],
      ['Home page', 'BROWSER'],
      ['Nightly', 'HEARTBEAT'],
      ['Orders API', 'API'],
      ['Resolver', 'DNS'],
      ['Suite', 'PLAYWRIGHT'],
    ]);
    const group = first.groups.find((g) => g.name === 'Core')!;
    expect(group.tags).toEqual(['shop', 'vigil:project=website', 'vigil:logical=core']);
    expect(group.locations).toEqual(['office-berlin']);
    const orders = mine.find((check) => check.name === 'Orders API')!;
    expect(orders.groupId).toBe(group.id);
    expect(orders.tags).toContain('vigil:logical=orders-api');
    expect((orders.request as { url: string }).url).toBe('https://api.example.com/orders');
    // Channels carry the project's marker in their name, and their subscriptions.
    const byName = (name: string) => first.channels.find((c) => (c.config as { name: string }).name === name)!;
    const mail = byName('ops@example.com [vigil:website/ops-email]');
    expect(mail).toMatchObject({ type: 'EMAIL', sendDegraded: true, config: { address: 'ops@example.com' } });
    expect(mail.subscriptions).toEqual([expect.objectContaining({ checkId: orders.id, activated: true })]);
    const hook = byName('Ops hook [vigil:website/ops-hook]');
    expect(hook).toMatchObject({ type: 'WEBHOOK', config: { url: 'https://hooks.example.com/vigil', method: 'POST' } });
    expect(hook.subscriptions).toEqual([expect.objectContaining({ groupId: group.id, activated: true })]);
    expect(first.windows).toEqual([
      expect.objectContaining({
        name: 'Nightly [vigil:website/nightly-window]',
        tags: ['shop'],
        repeatInterval: 1,
        repeatUnit: 'DAY',
      }),
    ]);
    const browser = mine.find((check) => check.name === 'Home page')!;
    expect(browser.script).toContain("await page.goto('https://example.com')");
    const resolver = mine.find((check) => check.name === 'Resolver')!;
    expect(resolver.request).toMatchObject({ recordType: 'AAAA', query: 'example.com', protocol: 'UDP' });
    expect((resolver.request as { assertions: unknown[] }).assertions).toEqual([
      { source: 'RESPONSE_CODE', property: '', comparison: 'EQUALS', target: 'NOERROR' },
    ]);
    // The Playwright suite's project came through the code bundle upload into the check's files.
    const suite = mine.find((check) => check.name === 'Suite')!;
    const files = suite.files as Array<{ path: string; content: string }>;
    expect(files.map((file) => file.path).sort()).toEqual([
      'package-lock.json',
      'package.json',
      'playwright.config.ts',
      'tests/home.spec.ts',
    ]);
    expect(files.find((file) => file.path === 'tests/home.spec.ts')!.content).toBe(pwSpec('home'));
    // The private location, marked in its name, and the check it is assigned to runs there.
    expect(first.locations).toEqual([
      expect.objectContaining({ name: 'Office [vigil:website/office]', slugName: 'office-berlin', icon: 'location' }),
    ]);
    expect(orders.locations).toEqual(['eu-west-1', 'office-berlin']);
    // The status page lists the checks whose triggerIncident names its card's service.
    expect(first.pages).toEqual([
      expect.objectContaining({
        title: 'Acme status [vigil:website/status]',
        slug: `acme-status-${process.pid}`,
        checkIds: [orders.id],
      }),
    ]);
  });

  it('a second deploy of the unchanged project changes nothing', async () => {
    const before = await eventCount(first);
    const run = await checkly.cli(['deploy', '--force'], {}, project);
    expect(run.code).toBe(0);
    expect(await readBack()).toEqual(first);
    expect(before).toBeGreaterThan(0);
    expect(await eventCount(first)).toBe(before);
  });

  it('deploy --preview shows a changed field and changes nothing; deploy then applies it', async () => {
    const changed: Variant = {
      ordersUrl: 'https://api.example.com/v2/orders',
      dnsQuery: 'www.example.com',
      officeName: 'Head office',
      pageName: 'Acme service status',
      pwTitle: 'home page',
    };
    await writeFile(join(project, 'site.check.ts'), constructs(changed));
    await writeFile(join(project, 'tests', 'home.spec.ts'), pwSpec(changed.pwTitle));
    const preview = await checkly.cli(['deploy', '--preview'], {}, project);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('Update and Unchanged:');
    for (const line of [
      'ApiCheck: orders-api',
      'DnsMonitor: resolver',
      'PlaywrightCheck: pw-suite',
      'PrivateLocation: office',
      'StatusPage: status',
    ])
      expect(preview.stdout).toContain(line);
    expect(await readBack()).toEqual(first);

    const run = await checkly.cli(['deploy', '--force'], {}, project);
    expect(run.code).toBe(0);
    const after = await readBack();
    const orders = after.checks.find((check) => check.name === 'Orders API')!;
    expect((orders.request as { url: string }).url).toBe('https://api.example.com/v2/orders');
    expect(after.checks.map((check) => check.id)).toEqual(first.checks.map((check) => check.id));
    const others = (state: typeof first) =>
      state.checks.filter((check) => !['Orders API', 'Resolver', 'Suite'].includes(check.name));
    expect(others(after)).toEqual(others(first));
    const byName = (state: typeof first, name: string) => state.checks.find((check) => check.name === name)!;
    expect((byName(after, 'Resolver').request as { query: string }).query).toBe('www.example.com');
    const files = byName(after, 'Suite').files as Array<{ path: string; content: string }>;
    expect(files.find((file) => file.path === 'tests/home.spec.ts')!.content).toBe(pwSpec('home page'));
    expect(after.locations).toEqual([
      expect.objectContaining({ id: first.locations[0]!.id, name: 'Head office [vigil:website/office]' }),
    ]);
    expect(after.pages).toEqual([{ ...first.pages[0], title: 'Acme service status [vigil:website/status]' }]);
  });

  it('a concurrent deploy of the same project gets a 409 and changes nothing', async () => {
    // The lock a running deploy holds (apps/api/src/checkly/projects.ts).
    const key = `checkly:project-lock:${owner.accountId}:website`;
    const store = vigil.running.platform.stateStore;
    expect(await store.setIfAbsent(key, 'another deploy', { ttlMs: 60_000 })).toBe(true);
    try {
      const before = await readBack();
      const run = await checkly.cli(['deploy', '--force'], {}, project);
      expect(run.code).toBe(1);
      expect(run.stdout + run.stderr).toContain('A deployment for this project is still in progress.');
      expect(await readBack()).toEqual(before);
    } finally {
      await store.del(key);
    }
  });

  it('a construct Vigil cannot honour fails the whole deploy with a 400 naming it; nothing applied', async () => {
    const before = await readBack();
    await writeFile(
      join(project, 'snippet.check.ts'),
      "import { ApiCheck, Dashboard } from 'checkly/constructs'\n" +
        "new Dashboard('status-board', { header: 'Status', customUrl: 'acme-status' })\n" +
        "new ApiCheck('new-api', { name: 'New API', request: { method: 'GET', url: 'https://example.com/new' } })\n",
    );
    const run = await checkly.cli(['deploy', '--force'], {}, project);
    await rm(join(project, 'snippet.check.ts'));
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('dashboard "status-board": Vigil does not support dashboards');
    expect(await readBack()).toEqual(before);
  });

  it('destroy removes what the project owns and nothing else', async () => {
    const run = await checkly.cli(['destroy', '--force'], {}, project);
    expect(run.stdout + run.stderr).not.toContain('could not be destroyed');
    expect(run.code).toBe(0);
    const after = await readBack();
    expect(after.checks.map((check) => check.id)).toEqual([outsider.id]);
    expect(after.groups).toEqual([]);
    expect(after.channels.map((channel) => channel.id)).toEqual([outsiderChannel.id]);
    expect(after.windows).toEqual([]);
    expect(after.locations).toEqual([]);
    expect(after.pages).toEqual([]);
    // Destroying again: nothing left to remove.
    expect((await checkly.cli(['destroy', '--force'], {}, project)).code).toBe(0);
  });
});
