import { mkdtempSync, writeFileSync } from 'node:fs';
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
});
