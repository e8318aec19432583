/**
 * `checkly deploy` through Vigil's Checkly dialect: one project of N TCP checks posted as the CLI
 * posts it (gzip JSON), first deploy (all created), an unchanged redeploy (nothing written), a dry
 * run, and a destroy, beside the baseline of creating the same N checks one POST at a time through
 * the dialect's own check route. Then a mixed project of the constructs issue 28 added (DNS checks,
 * Playwright suites sharing one uploaded code bundle, private locations assigned to checks, status
 * pages listing checks through their services). Standalone Vigil in this process, embedded stores.
 *
 *   npm run bench -- checkly-deploy [--n 200]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createAccount, startVigil } from '#test-vigil';
import { printMachine, printTable, writeResults } from './support/report.ts';
import { ratio, round } from './support/stats.ts';

const tcp = (i: number) => ({
  name: `DB ${i}`,
  locations: ['eu-west-1'],
  frequency: 10,
  groupId: null,
  doubleCheck: false,
  useGlobalAlertSettings: true,
  runParallel: false,
  checkType: 'TCP',
  request: { hostname: `db${i}.example.com`, port: 5432 },
});

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { n: { type: 'string', default: '200' } } });
  const n = Number(values.n);
  printMachine();
  const vigil = await startVigil();
  try {
    const owner = await createAccount(vigil, 'team');
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${vigil.url}/checkly${path}`, {
        method,
        headers: {
          authorization: `Bearer ${owner.ownerKey}`,
          'x-checkly-account': owner.accountId,
          ...(body ? { 'content-type': 'application/json', 'content-encoding': 'gzip' } : {}),
        },
        body: body ? gzipSync(JSON.stringify(body)) : undefined,
      });
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };
    const timed = async (work: () => Promise<void>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const project = (name: string) => ({
      project: { logicalId: name, name },
      resources: Array.from({ length: n }, (_, i) => ({ logicalId: `db-${i}`, type: 'check', payload: tcp(i) })),
    });

    // Warm the process (JIT, first writes) on another project, then measure.
    await call('POST', '/v1/projects/deploy?dryRun=false&scheduleOnDeploy=true', project('warm-up'));
    await call('DELETE', '/v1/projects/warm-up?dryRun=false');
    const singles = await timed(async () => {
      for (let i = 0; i < n; i++) await call('POST', '/v1/checks/tcp?autoAssignAlerts=false', tcp(i));
    });
    const deploy = '/v1/projects/deploy?dryRun=false&scheduleOnDeploy=true';
    const first = await timed(() => call('POST', deploy, project('shop')));
    const unchanged = await timed(() => call('POST', deploy, project('shop')));
    const dry = await timed(() => call('POST', '/v1/projects/deploy?dryRun=true', project('shop')));
    const destroy = await timed(() => call('DELETE', '/v1/projects/shop?dryRun=false'));
    const rows = [
      [`${n} single POST /v1/checks/tcp (baseline)`, round(singles), 1],
      ['deploy, all created', round(first), ratio(first, singles)],
      ['deploy again, unchanged', round(unchanged), ratio(unchanged, singles)],
      ['deploy --preview (dry run)', round(dry), ratio(dry, singles)],
      ['destroy', round(destroy), ratio(destroy, singles)],
    ];
    printTable(
      `checkly deploy of a project of ${n} TCP checks (ms, one request each)`,
      ['operation', 'ms', 'vs baseline'],
      rows,
    );
    const mixedRows = await mixed(call, timed, upload(vigil.url, owner), n);
    printTable(
      `checkly deploy of a mixed project (${mixedShape(n)}; ms, one request each)`,
      ['operation', 'ms'],
      mixedRows,
    );
    writeResults('checkly-deploy', { n, rows, mixed: mixedRows });
  } finally {
    await vigil.stop();
  }
}

const mixedShape = (n: number) => {
  const k = Math.max(1, Math.floor(n / 10));
  return `${n} DNS checks, ${k} Playwright suites, ${k} private locations, ${k} status pages`;
};

/** The CLI's upload: the project as a tar.gz (system tar, GNU format), octet-stream. */
function upload(url: string, owner: { ownerKey: string; accountId: string }) {
  return async (): Promise<string> => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-bundle-'));
    mkdirSync(join(dir, 'tests'));
    writeFileSync(
      join(dir, 'playwright.config.ts'),
      "import { defineConfig } from '@playwright/test'\nexport default defineConfig({})\n",
    );
    writeFileSync(
      join(dir, 'tests', 'home.spec.ts'),
      "import { test } from '@playwright/test'\ntest('home', async () => {})\n",
    );
    const archive = execFileSync('tar', ['czf', '-', '-C', dir, '.']);
    rmSync(dir, { recursive: true, force: true });
    const response = await fetch(`${url}/checkly/next/checkly-storage/upload-code-bundle`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner.ownerKey}`,
        'x-checkly-account': owner.accountId,
        'content-type': 'application/octet-stream',
      },
      body: archive,
    });
    if (response.status !== 200) throw new Error(`upload: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { key: string }).key;
  };
}

async function mixed(
  call: (method: string, path: string, body?: unknown) => Promise<void>,
  timed: (work: () => Promise<void>) => Promise<number>,
  uploadBundle: () => Promise<string>,
  n: number,
): Promise<Array<[string, number]>> {
  const k = Math.max(1, Math.floor(n / 10));
  let key = '';
  const uploadMs = await timed(async () => {
    key = await uploadBundle();
  });
  const resources = [
    ...Array.from({ length: k }, (_, i) => ({
      logicalId: `office-${i}`,
      type: 'private-location',
      payload: { name: `Office ${i}`, slugName: `office-${i}`, icon: 'location' },
    })),
    ...Array.from({ length: k }, (_, i) => ({
      logicalId: `svc-${i}`,
      type: 'status-page-service',
      payload: { name: `S ${i}` },
    })),
    ...Array.from({ length: k }, (_, i) => ({
      logicalId: `page-${i}`,
      type: 'status-page',
      payload: {
        name: `Page ${i}`,
        url: `bench-page-${process.pid}-${i}`,
        cards: [{ name: `Page ${i}`, services: [{ ref: `svc-${i}` }] }],
      },
    })),
    ...Array.from({ length: n }, (_, i) => ({
      logicalId: `dns-${i}`,
      type: 'check',
      payload: {
        name: `DNS ${i}`,
        checkType: 'DNS',
        locations: ['eu-west-1'],
        groupId: null,
        request: { recordType: 'A', query: `host${i}.example.com` },
        triggerIncident: {
          serviceId: { ref: `svc-${i % k}` },
          severity: 'MAJOR',
          name: 'down',
          description: 'down',
          notifySubscribers: false,
        },
      },
    })),
    ...Array.from({ length: n }, (_, i) => ({
      logicalId: `a-${i}`,
      type: 'private-location-check-assignment',
      payload: { privateLocationId: { ref: `office-${i % k}` }, checkId: { ref: `dns-${i}` } },
    })),
    ...Array.from({ length: k }, (_, i) => ({
      logicalId: `pw-${i}`,
      type: 'check',
      payload: {
        name: `Suite ${i}`,
        checkType: 'PLAYWRIGHT',
        locations: ['eu-west-1'],
        runtimeId: '2026.04',
        codeBundlePath: key,
        browsers: ['chromium'],
        playwrightVersion: '1.56.1',
        testCommand: 'npx playwright test --config playwright.config.ts',
        workingDir: '.',
      },
    })),
  ];
  const project = { project: { logicalId: 'mixed', name: 'Mixed' }, resources };
  const deploy = '/v1/projects/deploy?dryRun=false&scheduleOnDeploy=true';
  const first = await timed(() => call('POST', deploy, project));
  const unchanged = await timed(() => call('POST', deploy, project));
  const dry = await timed(() => call('POST', '/v1/projects/deploy?dryRun=true', project));
  const destroy = await timed(() => call('DELETE', '/v1/projects/mixed?dryRun=false'));
  return [
    ['upload the code bundle', round(uploadMs)],
    ['deploy, all created', round(first)],
    ['deploy again, unchanged', round(unchanged)],
    ['deploy --preview (dry run)', round(dry)],
    ['destroy', round(destroy)],
  ];
}
