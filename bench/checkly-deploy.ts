/**
 * `checkly deploy` through Vigil's Checkly dialect: one project of N TCP checks posted as the CLI
 * posts it (gzip JSON), first deploy (all created), an unchanged redeploy (nothing written), a dry
 * run, and a destroy, beside the baseline of creating the same N checks one POST at a time through
 * the dialect's own check route. Standalone Vigil in this process, embedded stores.
 *
 *   npm run bench -- checkly-deploy [--n 200]
 */
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
    writeResults('checkly-deploy', { n, rows });
  } finally {
    await vigil.stop();
  }
}
