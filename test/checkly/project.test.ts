import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { checklyHarness, installChecklyCli, type ChecklyHarness } from './support.ts';

/**
 * `checkly deploy`, `deploy --preview` and `destroy` are not served yet (issue 28, projects):
 * the real CLI parses, validates and bundles a project against Vigil, then fails with Vigil's
 * message naming the gap, and nothing is created.
 */
vi.setConfig({ testTimeout: 180_000 });
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let checkly: ChecklyHarness;
let project: string;

beforeAll(async () => {
  const [cli, started] = await Promise.all([installChecklyCli(), startVigil()]);
  vigil = started;
  owner = await createAccount(vigil, 'team');
  checkly = await checklyHarness(cli, vigil.url, { apiKey: owner.ownerKey, accountId: owner.accountId });
  project = await mkdtemp(join(tmpdir(), 'vigil-checkly-project-'));
  await symlink(cli.modules, join(project, 'node_modules'));
  await writeFile(join(project, 'package.json'), '{"name":"website","private":true,"type":"module"}\n');
  await writeFile(
    join(project, 'checkly.config.ts'),
    "import { defineConfig } from 'checkly'\n" +
      "export default defineConfig({ projectName: 'Website', logicalId: 'website',\n" +
      "  checks: { checkMatch: '**/*.check.ts', frequency: 10, locations: ['eu-west-1'] } })\n",
  );
  await writeFile(
    join(project, 'api.check.ts'),
    "import { ApiCheck, AssertionBuilder } from 'checkly/constructs'\n" +
      "new ApiCheck('orders-api', { name: 'Orders API', request: { method: 'GET',\n" +
      "  url: 'https://api.example.com/orders', assertions: [AssertionBuilder.statusCode().equals(200)] } })\n",
  );
}, 600_000);
afterAll(async () => {
  await checkly?.close();
  await vigil?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('checkly deploy and destroy', () => {
  it.each([
    [['deploy', '--force'], 'Your project could not be deployed.'],
    [['deploy', '--preview'], 'Your project could not be deployed.'],
    [['destroy', '--force'], 'Your project could not be destroyed.'],
  ])('%j fails with Vigil saying projects are not supported yet', async (args, headline) => {
    const run = await checkly.cli(args, {}, project);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(headline);
    expect(run.stdout).toContain('Vigil does not support projects yet (checkly deploy and destroy); use vigil deploy');
    expect((await owner.owner.get('/v1/checks')).body).toEqual([]);
  });
});
