import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv, tempDir, vigil } from './run.ts';

/**
 * Monitoring as code: `vigil deploy` and `vigil test` on the real binary, against a Vigil started
 * here and a real HTTP target on loopback (the runner may reach it: VIGIL_RUNNER_ALLOW_PRIVATE).
 */
let server: TestVigil;
// Each test runs the real binary a dozen times; on a loaded machine that outlasts the default 60 s.
vi.setConfig({ testTimeout: 240_000 });
let target: Server;
let base: string;

beforeAll(async () => {
  target = createServer((request, response) => {
    const up = request.url?.startsWith('/ok') ?? false;
    response.writeHead(up ? 200 : 503, { 'content-type': 'application/json' });
    response.end(up ? '{"status":"ok"}' : '{"status":"down"}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  server = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

function project(overrides: { frequency?: number; withOrders?: boolean } = {}) {
  const checks: Array<Record<string, unknown>> = [
    {
      logicalId: 'homepage',
      name: 'Homepage',
      checkType: 'API',
      group: 'shop',
      frequency: overrides.frequency ?? 5,
      request: {
        url: 'http://{{SHOP_HOST}}/ok',
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
      },
    },
  ];
  if (overrides.withOrders !== false)
    checks.push({ logicalId: 'orders', name: 'Orders API', checkType: 'API', tags: ['orders'] });
  return {
    project: 'shop',
    checkGroups: [
      {
        logicalId: 'shop',
        name: 'Shop',
        environmentVariables: [{ key: 'SHOP_HOST', value: base.replace('http://', '') }],
      },
    ],
    checks,
    alertChannels: [{ logicalId: 'ops', name: 'Ops', url: 'https://hooks.example.com/vigil', sendDegraded: true }],
    subscriptions: [
      { channel: 'ops', group: 'shop' },
      ...(overrides.withOrders !== false ? [{ channel: 'ops', check: 'orders' }] : []),
    ],
  };
}

describe('vigil deploy', () => {
  it('previews, applies idempotently, diffs an edit field by field, and deletes only its own resources', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const file = join(dir, 'vigil.config.yaml');
    writeFileSync(file, stringify(project()));
    const run = (...args: string[]) => vigil(args, { env, cwd: dir });
    const checkNames = async () => {
      const ls = await run('checks', 'ls', '--json');
      expect(ls.code, ls.stderr).toBe(0);
      return (JSON.parse(ls.stdout) as Array<{ name: string }>).map((c) => c.name).sort();
    };

    const handMade = await run('checks', 'create', '--name', 'By hand', '--type', 'API', '--get', 'id');
    expect(handMade.code, handMade.stderr).toBe(0);

    const preview = await run('deploy', '--preview');
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('+ create check-group shop (Shop)');
    expect(preview.stdout).toContain('+ create check homepage (Homepage)');
    expect(preview.stdout).toContain('+ create alert-channel ops (Ops)');
    expect(preview.stdout).toContain('+ create subscription ops → group shop');
    expect(preview.stdout).toContain('Plan: 6 to create, 0 to update, 0 to delete (preview: nothing was changed)');
    expect(await checkNames()).toEqual(['By hand']);

    const deployed = await run('deploy');
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/✓ created check homepage: [0-9a-f-]{36}/);
    expect(deployed.stdout).toContain('Deployed: 6 created, 0 updated, 0 deleted');
    expect(await checkNames()).toEqual(['By hand', 'Homepage', 'Orders API']);
    // One page of a list says where it is, from X-Total-Count (on stderr: stdout stays the list).
    const page = await run('checks', 'ls', '--limit', '2', '--page', '1');
    expect(page.stderr).toBe('1-2 of 3, next: --page 2\n');
    expect(page.stdout.trimEnd().split('\n')).toHaveLength(3);

    // The server holds what the file says, with the markers deploy matches on.
    const checks = JSON.parse((await run('checks', 'ls', '--json')).stdout) as Array<Record<string, unknown>>;
    const homepage = checks.find((c) => c.name === 'Homepage')!;
    const orders = checks.find((c) => c.name === 'Orders API')!;
    expect(homepage.tags).toEqual(['vigil:project=shop', 'vigil:logical=homepage']);
    expect(orders.tags).toEqual(['orders', 'vigil:project=shop', 'vigil:logical=orders']);
    expect(homepage.frequency).toBe(5);
    const groups = JSON.parse((await run('check-groups', 'ls', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(groups.map((g) => g.name)).toEqual(['Shop']);
    expect(homepage.groupId).toBe(groups[0]!.id);
    const channels = JSON.parse((await run('alert-channels', 'ls', '--json')).stdout) as Array<{
      config: { name: string };
      sendDegraded: boolean;
      subscriptions: Array<{ checkId: string | null; groupId: string | null; activated: boolean }>;
    }>;
    expect(channels.map((c) => c.config.name)).toEqual(['Ops [vigil:shop/ops]']);
    expect(channels[0]!.sendDegraded).toBe(true);
    expect(channels[0]!.subscriptions.filter((s) => s.activated)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ groupId: groups[0]!.id }),
        expect.objectContaining({ checkId: orders.id }),
      ]),
    );

    for (const args of [['deploy', '--preview'], ['deploy']]) {
      const again = await run(...args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('Nothing to change: the account matches vigil.config.yaml');
    }

    // An edit shows as a field-level diff, and applies as an update of the same check.
    writeFileSync(file, readFileSync(file, 'utf8').replace('frequency: 5', 'frequency: 15'));
    const edited = await run('deploy', '--preview');
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toContain('~ update check homepage (Homepage)');
    expect(edited.stdout).toContain('    frequency: 5 → 15');
    expect(edited.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete');
    const json = JSON.parse((await run('deploy', '--preview', '--json')).stdout);
    expect(json.plan).toEqual([
      expect.objectContaining({
        action: 'update',
        kind: 'check',
        logicalId: 'homepage',
        id: homepage.id,
        changes: [{ path: 'frequency', old: 5, new: 15 }],
      }),
    ]);
    const updated = await run('deploy');
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain(`✓ updated check homepage: ${homepage.id}`);
    const reread = await run('checks', 'get', String(homepage.id), '--json');
    expect(JSON.parse(reread.stdout).frequency).toBe(15);
    expect((await run('deploy', '--preview')).stdout).toContain('Nothing to change');

    // A check removed from the file is deleted (its subscription goes with it); the hand-made one stays.
    writeFileSync(file, stringify(project({ frequency: 15, withOrders: false })));
    const shrunk = await run('deploy', '--preview');
    expect(shrunk.stdout).toContain('- delete check orders (Orders API)');
    expect(shrunk.stdout).toContain('Plan: 0 to create, 0 to update, 1 to delete');
    const pruned = await run('deploy');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain(`✓ deleted check orders: ${orders.id}`);
    expect(await checkNames()).toEqual(['By hand', 'Homepage']);
    expect((await run('deploy', '--preview')).stdout).toContain('Nothing to change');
  });

  it('refuses a project file that does not hold together, naming the field, before any request', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const broken = { ...project(), checks: [{ logicalId: 'x', name: 'X', checkType: 'API', group: 'nope' }] };
    writeFileSync(join(dir, 'vigil.config.json'), JSON.stringify(broken));
    const run = await vigil(['deploy', '--preview'], { env, cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('vigil.config.json is not a valid project file');
    expect(run.stderr).toContain('checks.0.group: no check group with logicalId nope in this file');
    const none = await vigil(['deploy'], { env, cwd: tempDir('vigil-empty-') });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No project file in .*vigil\.config\.yaml/);
  });

  it('applies nothing when the server would refuse one change, naming it', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const file = {
      project: 'refused',
      checks: [
        { logicalId: 'good', name: 'Good', checkType: 'API' },
        { logicalId: 'bad', name: 'Bad', checkType: 'API', frequency: 7 },
      ],
    };
    writeFileSync(join(dir, 'vigil.config.yaml'), stringify(file));
    const run = await vigil(['deploy'], { env, cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The server would refuse 1 of 2 changes (nothing was changed)');
    expect(run.stderr).toMatch(/create check bad: .*frequency/);
    expect(run.stdout).not.toContain('✓ created');
    const again = await vigil(['deploy', '--preview'], { env, cwd: dir });
    expect(again.stdout).toContain('Plan: 2 to create, 0 to update, 0 to delete');
  });

  it('reports a partial failure: what was applied, what was not', async () => {
    // A failure the dry run cannot foresee: the link to the server breaks after the first write.
    // A proxy on loopback passes every read and dry run, and the first real write, then answers 503.
    let writes = 0;
    const proxy = createServer((request, response) => {
      const dry = (request.url ?? '').includes('dryRun=true');
      if (request.method !== 'GET' && !dry && ++writes > 1) {
        response.writeHead(503, { 'content-type': 'application/json' });
        return void response.end('{"statusCode":503,"error":"Service Unavailable","message":"link down"}');
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers = Object.fromEntries(
          Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
        ) as Record<string, string>;
        fetch(`${server.url}${request.url}`, {
          method: request.method,
          headers,
          body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
        }).then(
          async (answer) => {
            response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
            response.end(Buffer.from(await answer.arrayBuffer()));
          },
          () => response.writeHead(502).end(),
        );
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { env } = await ownerEnv(server);
      const viaProxy = { ...env, VIGIL_API_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
      const dir = tempDir('vigil-project-');
      const file = {
        project: 'partial',
        checks: [
          { logicalId: 'first', name: 'First', checkType: 'API' },
          { logicalId: 'second', name: 'Second', checkType: 'API' },
        ],
      };
      writeFileSync(join(dir, 'vigil.config.yaml'), stringify(file));
      const run = await vigil(['deploy'], { env: viaProxy, cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/✓ created check first: /);
      expect(run.stderr).toMatch(/create check second failed: .*link down/);
      expect(run.stderr).toContain('Applied 1 of 2 changes; 1 not applied');
      const again = await vigil(['deploy', '--preview'], { env, cwd: dir });
      expect(again.stdout).toContain('Plan: 1 to create, 0 to update, 0 to delete');
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('vigil test', () => {
  it('runs the declared checks through the runner, exit 0 when all pass and 1 when one fails', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const file = join(dir, 'vigil.config.yaml');
    writeFileSync(file, stringify(project()));
    const passing = await vigil(['test', '--check', 'homepage'], { env, cwd: dir });
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toContain('homepage (Homepage)');
    expect(passing.stdout).toMatch(/PASSED from \S+ in \d+ ms, HTTP 200/);
    expect(passing.stdout).toMatch(/yes\s+STATUS_CODE EQUALS 200\s+200/);
    expect(passing.stdout).toContain('1 passed, 0 failed');

    const failing = {
      project: 'ci',
      checks: [
        {
          logicalId: 'up',
          name: 'Up',
          checkType: 'API',
          request: { url: `${base}/ok`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
        },
        {
          logicalId: 'down',
          name: 'Down',
          checkType: 'API',
          request: {
            url: `${base}/down`,
            assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
          },
        },
        { logicalId: 'nightly', name: 'Nightly', checkType: 'HEARTBEAT' },
      ],
    };
    writeFileSync(join(dir, 'ci.yaml'), stringify(failing));
    const failed = await vigil(['test', '--config', 'ci.yaml'], { env, cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/down \(Down\)\nFAILED from \S+ in \d+ ms, HTTP 503/);
    expect(failed.stdout).toMatch(/NO\s+STATUS_CODE EQUALS 200\s+503/);
    expect(failed.stdout).toContain('SKIPPED: HEARTBEAT checks are not run by vigil test');
    expect(failed.stdout).toContain('1 passed, 1 failed, 1 skipped');
    expect(failed.stderr).toContain('1 of 3 checks failed');
    // Nothing was deployed by testing.
    const ls = await vigil(['checks', 'ls', '--json'], { env });
    expect(JSON.parse(ls.stdout)).toEqual([]);
  });
});
