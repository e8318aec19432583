import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv, tempDir, vigil } from './run.ts';

/**
 * Script checks from the CLI, on the real binary against a Vigil started here: `checks create
 * --script`, `checks test --script` (the real runner and sandbox run it), and `deploy` picking a
 * script up from the project file by path, with the preview showing the lines that changed.
 */
let server: TestVigil;
// Script runs start a sandboxed Node each; on a loaded machine a test of several runs takes minutes.
vi.setConfig({ testTimeout: 400_000 });
let target: Server;
let base: string;

const script = (expected: string) => `import { test, expect } from '@playwright/test';

test('health', async ({ request }) => {
  await test.step('GET health', async () => {
    const response = await request.get(\`\${process.env.BASE_URL}/health\`);
    expect(response.status()).toBe(200);
    console.log('health answered', response.status());
  });
  await test.step('check body', async () => {
    const response = await request.get(\`\${process.env.BASE_URL}/health\`);
    expect((await response.json()).status).toBe('${expected}');
  });
});
`;

beforeAll(async () => {
  target = createServer((request, response) => {
    if (request.url === '/shop') {
      response.writeHead(200, { 'content-type': 'text/html' });
      return response.end('<title>Shop</title><h1>Welcome</h1>');
    }
    response.writeHead(request.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
    response.end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  server = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

/** An account whose BASE_URL variable points at the local target: scripts read it from process.env. */
async function account() {
  const { env } = await ownerEnv(server);
  const set = await vigil(['env', 'add', 'BASE_URL', base], { env });
  expect(set.code, set.stderr).toBe(0);
  return env;
}

describe('script checks from the CLI', () => {
  it('checks test --script runs a test file and prints its steps, requests and logs; a failing expect exits 1', async () => {
    const env = await account();
    const dir = tempDir('vigil-scripts-');
    writeFileSync(join(dir, 'health.spec.ts'), script('ok'));
    writeFileSync(join(dir, 'broken.spec.ts'), script('degraded'));

    const passed = await vigil(['checks', 'test', '--script', 'health.spec.ts'], { env, cwd: dir });
    expect(passed.code, passed.stderr + passed.stdout).toBe(0);
    expect(passed.stdout).toMatch(/^PASSED from \S+ in \d+ ms/);
    expect(passed.stdout).toMatch(/✓\s+GET health\s+passed\s+\d+ ms/);
    expect(passed.stdout).toMatch(/✓\s+check body\s+passed/);
    expect(passed.stdout).toMatch(new RegExp(`GET\\s+200\\s+\\d+ ms\\s+${base}/health`));
    expect(passed.stdout).toMatch(/Logs:\n {2}.*health answered 200/);

    const failed = await vigil(['checks', 'test', '--script', 'broken.spec.ts', '--json'], { env, cwd: dir });
    expect(failed.code).toBe(1);
    const run = JSON.parse(failed.stdout);
    expect(run.result.hasFailures).toBe(true);
    expect(run.result.steps).toEqual([
      expect.objectContaining({ name: 'GET health', status: 'passed' }),
      expect.objectContaining({ name: 'check body', status: 'failed', error: expect.stringContaining('degraded') }),
    ]);
    const human = await vigil(['checks', 'test', '--script', 'broken.spec.ts'], { env, cwd: dir });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^FAILED/);
    expect(human.stdout).toMatch(
      /\n✗ check body:\n {2}Error: expect\(received\)\.toBe\(expected\)[^\n]*\n[\s\S]*Expected: "degraded"/,
    );
  });

  it('checks create --type MULTI_STEP --script stores the file; update --script replaces it', async () => {
    const env = await account();
    const dir = tempDir('vigil-scripts-');
    writeFileSync(join(dir, 'health.spec.ts'), script('ok'));
    const created = await vigil(
      ['checks', 'create', '--name', 'Health', '--type', 'MULTI_STEP', '--script', 'health.spec.ts', '--json'],
      { env, cwd: dir },
    );
    expect(created.code, created.stderr).toBe(0);
    const check = JSON.parse(created.stdout);
    expect(check).toMatchObject({ checkType: 'MULTI_STEP', script: script('ok'), maxResponseTime: 240_000 });
    const shown = await vigil(['checks', 'get', check.id], { env });
    expect(shown.stdout).toMatch(/script\s+13 lines, \d+ bytes \(--json shows it\)/);
    writeFileSync(join(dir, 'health.spec.ts'), script('fine'));
    const updated = await vigil(['checks', 'update', check.id, '--script', 'health.spec.ts'], { env, cwd: dir });
    expect(updated.code, updated.stderr).toBe(0);
    const after = await vigil(['checks', 'get', check.id, '--json'], { env });
    expect(JSON.parse(after.stdout).script).toBe(script('fine'));
    // A check the server refuses names the field; a missing file is a usage error before any request.
    const missing = await vigil(['checks', 'create', '--name', 'X', '--type', 'MULTI_STEP', '--script', 'nope.ts'], {
      env,
      cwd: dir,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--script: cannot read nope\.ts: ENOENT/);
    const none = await vigil(['checks', 'test'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Give --file .*, --script .* or --files/);
  });

  it('deploy reads code.entrypoint relative to the project file, previews an edit line by line, and vigil test runs it', async () => {
    const env = await account();
    const dir = tempDir('vigil-scripts-project-');
    mkdirSync(join(dir, 'checks'));
    writeFileSync(join(dir, 'checks', 'health.spec.ts'), script('ok'));
    const project = {
      project: 'scripts',
      checks: [
        {
          logicalId: 'health',
          name: 'Health flow',
          checkType: 'MULTI_STEP',
          frequency: 5,
          code: { entrypoint: './checks/health.spec.ts' },
        },
      ],
    };
    writeFileSync(join(dir, 'vigil.config.yaml'), stringify(project));
    // Run from another directory: the path follows the project file.
    const run = (...args: string[]) =>
      vigil([...args, '--config', join(dir, 'vigil.config.yaml')], { env, cwd: tempDir() });

    const deployed = await run('deploy');
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain('+ create check health (Health flow)');
    expect(deployed.stdout).toMatch(/\n {4}script: 13 lines, \d+ bytes\n/);
    expect((await run('deploy', '--preview')).stdout).toMatch(/Nothing to change/);

    writeFileSync(join(dir, 'checks', 'health.spec.ts'), script('fine'));
    const preview = await run('deploy', '--preview');
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('~ update check health (Health flow)');
    expect(preview.stdout).toMatch(/script: changed at line 11 /);
    expect(preview.stdout).toContain("      -     expect((await response.json()).status).toBe('ok');");
    expect(preview.stdout).toContain("      +     expect((await response.json()).status).toBe('fine');");
    expect((await run('deploy')).code).toBe(0);
    const ls = await vigil(['checks', 'ls', '--json'], { env });
    const stored = (JSON.parse(ls.stdout) as Array<{ name: string; script?: string }>).find(
      (c) => c.name === 'Health flow',
    );
    expect(stored?.script).toBe(script('fine'));

    // vigil test runs the script through the runner, without deploying: 'fine' is not what the target says.
    const tested = await run('test');
    expect(tested.code).toBe(1);
    expect(tested.stdout).toMatch(/health \(Health flow\)\nFAILED/);
    expect(tested.stdout).toContain('0 passed, 1 failed');
  });

  it('a PLAYWRIGHT test project from a directory (--files) is created, triggered, and runs every spec file', async () => {
    const env = await account();
    const dir = tempDir('vigil-scripts-suite-');
    mkdirSync(join(dir, 'suite', 'tests'), { recursive: true });
    mkdirSync(join(dir, 'suite', 'node_modules', 'left-out'), { recursive: true });
    const spec = (name: string, body: string) =>
      `import { test, expect } from '@playwright/test';\ntest('${name}', async ({ page }) => {\n${body}\n});\n`;
    writeFileSync(
      join(dir, 'suite', 'tests', 'title.spec.ts'),
      spec('title', "  await page.goto(`${process.env.BASE_URL}/shop`);\n  await expect(page).toHaveTitle('Shop');"),
    );
    writeFileSync(
      join(dir, 'suite', 'tests', 'heading.spec.ts'),
      spec(
        'heading',
        "  await test.step('open the shop', async () => {\n    await page.goto(`${process.env.BASE_URL}/shop`);\n  });\n  await expect(page.locator('h1')).toHaveText('Welcome');",
      ),
    );
    writeFileSync(join(dir, 'suite', 'node_modules', 'left-out', 'index.js'), 'module.exports = 1;');
    const created = await vigil(
      ['checks', 'create', '--name', 'Shop suite', '--type', 'PLAYWRIGHT', '--files', 'suite', '--json'],
      { env, cwd: dir },
    );
    expect(created.code, created.stderr).toBe(0);
    const check = JSON.parse(created.stdout);
    expect(check.files.map((f: { path: string }) => f.path)).toEqual(['tests/heading.spec.ts', 'tests/title.spec.ts']);
    const triggered = await vigil(['checks', 'trigger', check.id], { env });
    expect(triggered.code, triggered.stdout + triggered.stderr).toBe(0);
    expect(triggered.stdout).toMatch(/^PASSED from \S+ in \d+ ms/);
    // Both files ran: one test's own entry, the other's step.
    expect(triggered.stdout).toMatch(/✓\s+title\s+passed/);
    expect(triggered.stdout).toMatch(/✓\s+open the shop\s+passed/);
    const wrongType = await vigil(['checks', 'test', '--files', 'suite', '--type', 'BROWSER'], { env, cwd: dir });
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toMatch(/--files makes a PLAYWRIGHT check/);
  });
});
