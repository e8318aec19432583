import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.ts';
import { loadProject } from './load.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'vigil-load-'));
const declared = { project: 'shop', checks: [{ logicalId: 'home', name: 'Home', checkType: 'API' }] };

describe('loadProject', () => {
  it('reads YAML, JSON and an .mjs default export (object or function) alike', async () => {
    const yamlDir = dir();
    writeFileSync(
      join(yamlDir, 'vigil.config.yaml'),
      'project: shop\nchecks:\n  - logicalId: home\n    name: Home\n    checkType: API\n',
    );
    const jsonDir = dir();
    writeFileSync(join(jsonDir, 'vigil.config.json'), JSON.stringify(declared));
    const mjsDir = dir();
    writeFileSync(join(mjsDir, 'vigil.config.mjs'), `export default ${JSON.stringify(declared)};`);
    writeFileSync(join(mjsDir, 'other.mjs'), `export default async () => (${JSON.stringify(declared)});`);
    const loaded = await Promise.all([
      loadProject(undefined, yamlDir),
      loadProject(undefined, jsonDir),
      loadProject(undefined, mjsDir),
      loadProject('other.mjs', mjsDir),
    ]);
    for (const { project } of loaded) {
      expect(project).toMatchObject({ project: 'shop', checkGroups: [], alertChannels: [], subscriptions: [] });
      expect(project.checks).toEqual([{ logicalId: 'home', name: 'Home', checkType: 'API' }]);
    }
    expect(loaded[3]!.path).toBe(join(mjsDir, 'other.mjs'));
  });

  it('says why a vigil.config.ts is not loaded, and what to write instead', async () => {
    const tsDir = dir();
    writeFileSync(join(tsDir, 'vigil.config.ts'), 'export default {}');
    await expect(loadProject(undefined, tsDir)).rejects.toThrow(
      /cannot be loaded without a TypeScript compiler.*\.mjs/,
    );
  });

  it('usage errors (exit 2): no file, a missing --config, YAML that does not parse, an unknown top-level key', async () => {
    const bad = dir();
    writeFileSync(join(bad, 'broken.yaml'), 'project: [unclosed\n');
    writeFileSync(join(bad, 'extra.json'), JSON.stringify({ ...declared, monitors: [] }));
    const errors = await Promise.all([
      loadProject(undefined, dir()).catch((error: unknown) => error),
      loadProject('nope.yaml', bad).catch((error: unknown) => error),
      loadProject('broken.yaml', bad).catch((error: unknown) => error),
      loadProject('extra.json', bad).catch((error: unknown) => error),
    ]);
    expect(errors.every((error) => error instanceof UsageError && error.exitCode === 2)).toBe(true);
    const messages = errors.map((error) => (error as Error).message);
    expect(messages[0]).toMatch(/^No project file in .*: create one of vigil\.config\.yaml/);
    expect(messages[1]).toBe('--config nope.yaml: no such file');
    expect(messages[2]).toMatch(/^broken\.yaml does not parse: /);
    expect(messages[3]).toMatch(
      /^extra\.json is not a valid project file:\n {2}\(top level\): Unrecognized key: "monitors"/,
    );
  });

  it('reads script code from paths relative to the project file: entrypoint, content, a directory', async () => {
    const root = dir();
    mkdirSync(join(root, 'monitoring/checks/suite/tests/node_modules/x'), { recursive: true });
    const script = "import { test } from '@playwright/test';\ntest('a', async () => {});\n";
    writeFileSync(join(root, 'monitoring/checks/login.spec.ts'), script);
    writeFileSync(join(root, 'monitoring/checks/suite/tests/b.spec.ts'), 'b');
    writeFileSync(join(root, 'monitoring/checks/suite/a.spec.ts'), 'a');
    writeFileSync(join(root, 'monitoring/checks/suite/playwright.config.ts'), 'export default {};');
    writeFileSync(join(root, 'monitoring/checks/suite/tests/node_modules/x/index.js'), 'skipped');
    writeFileSync(join(root, 'monitoring/checks/suite/.env'), 'SECRET=skipped');
    const checks = [
      { logicalId: 'login', name: 'Login', checkType: 'MULTI_STEP', code: { entrypoint: './checks/login.spec.ts' } },
      { logicalId: 'inline', name: 'Inline', checkType: 'MULTI_STEP', code: { content: 'test()' } },
      { logicalId: 'suite', name: 'Suite', checkType: 'PLAYWRIGHT', code: { directory: 'checks/suite' } },
    ];
    writeFileSync(join(root, 'monitoring/vigil.config.json'), JSON.stringify({ project: 'shop', checks }));
    // Run from elsewhere: paths follow the project file, not the working directory.
    const { project } = await loadProject('monitoring/vigil.config.json', root);
    expect(project.checks).toEqual([
      { logicalId: 'login', name: 'Login', checkType: 'MULTI_STEP', script },
      { logicalId: 'inline', name: 'Inline', checkType: 'MULTI_STEP', script: 'test()' },
      {
        logicalId: 'suite',
        name: 'Suite',
        checkType: 'PLAYWRIGHT',
        files: [
          { path: 'a.spec.ts', content: 'a' },
          { path: 'playwright.config.ts', content: 'export default {};' },
          { path: 'tests/b.spec.ts', content: 'b' },
        ],
      },
    ]);
  });

  it('a wrong code block is a usage error naming the check and the field', async () => {
    const root = dir();
    const write = (name: string, code: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      writeFileSync(
        join(root, name),
        JSON.stringify({
          project: 'shop',
          checks: [{ logicalId: 'a', name: 'A', checkType: 'MULTI_STEP', code, ...extra }],
        }),
      );
    write('missing.json', { entrypoint: 'nope.spec.ts' });
    write('two.json', { entrypoint: 'a.ts', content: 'x' });
    write('dir.json', { directory: 'suite' });
    write('both.json', { content: 'x' }, { script: 'y' });
    const errors = await Promise.all(
      ['missing.json', 'two.json', 'dir.json', 'both.json'].map((name) =>
        loadProject(name, root).catch((error: unknown) => error as Error),
      ),
    );
    expect(errors.every((error) => error instanceof UsageError)).toBe(true);
    expect(errors.map((error) => (error as Error).message)).toEqual([
      expect.stringMatching(/^missing\.json: checks\.0\.code\.entrypoint: cannot read .*nope\.spec\.ts: ENOENT$/),
      expect.stringContaining('checks.0.code: name exactly one of entrypoint, content or directory'),
      expect.stringContaining('checks.0.code.directory: a test project (directory) makes a PLAYWRIGHT check'),
      expect.stringContaining('checks.0.code: give code or script, not both'),
    ]);
  });
});
