import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv, tempDir, vigil } from './run.ts';

/**
 * `vigil deploy --preview` asks the server about every change with ?dryRun=true (issue 23, item 1):
 * what apply would refuse, preview refuses, naming the field, and nothing is written either way.
 */
let server: TestVigil;
vi.setConfig({ testTimeout: 240_000 });

beforeAll(async () => {
  server = await startVigil();
});
afterAll(async () => server?.stop());

const head = () => server.running.platform.eventStore.headPosition();

function project(frequency: number, extra: Record<string, unknown> = {}) {
  return {
    project: 'preview',
    checkGroups: [{ logicalId: 'shop', name: 'Shop' }],
    checks: [
      { logicalId: 'home', name: 'Home', checkType: 'API', group: 'shop', frequency, ...extra },
      { logicalId: 'orders', name: 'Orders', checkType: 'API', frequency: 5 },
    ],
    alertChannels: [{ logicalId: 'ops', name: 'Ops', url: 'https://hooks.example.com/vigil' }],
    subscriptions: [{ channel: 'ops', check: 'orders' }],
    maintenanceWindows: [
      {
        logicalId: 'deploy',
        name: 'Deploy',
        checks: ['orders'],
        startsAt: '2030-01-01T00:00:00Z',
        endsAt: '2030-01-01T01:00:00Z',
      },
    ],
  };
}

describe('vigil deploy --preview', () => {
  it('fails on frequency: 7 naming the field, as apply would, and writes nothing', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-preview-');
    const file = join(dir, 'vigil.config.yaml');
    const run = (...args: string[]) => vigil(args, { env, cwd: dir });

    writeFileSync(file, stringify(project(7)));
    const before = await head();
    const preview = await run('deploy', '--preview');
    expect(preview.code, preview.stdout).not.toBe(0);
    expect(preview.stdout).toContain('+ create check home (Home)');
    expect(preview.stderr).toContain('The server would refuse 1 of 6 changes (nothing was changed)');
    expect(preview.stderr).toMatch(/✗ create check home: .*frequency/);
    expect(await head()).toBe(before);

    const json = await run('deploy', '--preview', '--json');
    expect(json.code).not.toBe(0);
    const answer = JSON.parse(json.stdout) as {
      refusals: Array<{ logicalId: string; status: number; message: string }>;
    };
    expect(answer.refusals).toEqual([
      expect.objectContaining({ logicalId: 'home', status: 400, message: expect.stringMatching(/^frequency/) }),
    ]);

    // Every refusal is reported, not only the first.
    writeFileSync(file, stringify(project(7, { degradedResponseTme: 100 })));
    const two = await run('deploy', '--preview');
    expect(two.stderr).toMatch(/degradedResponseTme: unknown field; did you mean degradedResponseTime\?/);
    expect(await head()).toBe(before);

    // Fixed, the preview passes, and the deploy applies everything it previewed.
    writeFileSync(file, stringify(project(5)));
    const passing = await run('deploy', '--preview');
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toContain('Plan: 6 to create, 0 to update, 0 to delete (preview: nothing was changed)');
    expect(await head()).toBe(before);
    const deployed = await run('deploy');
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain('Deployed: 6 created, 0 updated, 0 deleted');

    // An update is asked about against the stored check, too.
    writeFileSync(file, stringify(project(7)));
    const update = await run('deploy', '--preview');
    expect(update.code).not.toBe(0);
    expect(update.stderr).toMatch(/✗ update check home: .*frequency/);
  });
});
