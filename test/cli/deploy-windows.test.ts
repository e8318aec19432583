import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv, tempDir, vigil } from './run.ts';

/**
 * `vigil deploy` with maintenance windows: the real binary against a Vigil started here. Windows
 * name the file's checks by logical id, take times with any offset, carry their marker in the
 * name (their tags choose checks), and are created, diffed, updated and deleted like the rest.
 */
let server: TestVigil;
vi.setConfig({ testTimeout: 240_000 });

beforeAll(async () => {
  server = await startVigil();
});
afterAll(async () => {
  await server?.stop();
});

const project = {
  project: 'ops',
  checks: [
    { logicalId: 'db', name: 'Database', checkType: 'API', tags: ['db'] },
    { logicalId: 'api', name: 'Public API', checkType: 'API' },
  ],
  maintenanceWindows: [
    {
      logicalId: 'deploys',
      name: 'Weekly deploy',
      tags: ['db'],
      startsAt: '2036-12-02T23:00+01:00',
      endsAt: '2036-12-02T23:30+01:00',
      repeatUnit: 'week',
    },
    {
      logicalId: 'migration',
      name: 'Migration',
      checks: ['api'],
      startsAt: '2036-12-05T02:00:00Z',
      endsAt: '2036-12-05T04:00:00Z',
      pauseRuns: false,
    },
  ],
};

interface Window {
  id: string;
  name: string;
  tags: string[];
  checkIds: string[];
  startsAt: string;
  endsAt: string;
  repeatUnit: string | null;
  repeatInterval: number | null;
  pauseRuns: boolean;
}

describe('vigil deploy with maintenance windows', () => {
  it('creates them with checks by id and UTC times, is idempotent, diffs an edit, and deletes only its own', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const file = join(dir, 'vigil.config.yaml');
    writeFileSync(file, stringify(project));
    const run = (...args: string[]) => vigil(args, { env, cwd: dir });
    const windows = async () => JSON.parse((await run('mw', 'ls', '--json')).stdout) as Window[];
    const byName = async () => Object.fromEntries((await windows()).map((w) => [w.name, w]));

    const handMade = await run(
      ...['mw', 'create', '--name', 'By hand', '--tag', 'db', '--starts-at', '2036-01-01T00:00Z', '--duration', '1h'],
    );
    expect(handMade.code, handMade.stderr).toBe(0);

    const preview = await run('deploy', '--preview');
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('+ create maintenance-window deploys (Weekly deploy)');
    expect(preview.stdout).toContain('    startsAt: "2036-12-02T22:00:00.000Z"');
    expect(preview.stdout).toContain('    repeatInterval: 1');
    expect(preview.stdout).toContain('    checks: ["api"]');
    // Windows come after the checks they name.
    expect(preview.stdout.indexOf('create check api')).toBeLessThan(
      preview.stdout.indexOf('create maintenance-window migration'),
    );
    expect(preview.stdout).toContain('Plan: 4 to create, 0 to update, 0 to delete (preview: nothing was changed)');

    const deployed = await run('deploy');
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/✓ created maintenance-window migration: [0-9a-f-]{36}/);
    expect(deployed.stdout).toContain('Deployed: 4 created, 0 updated, 0 deleted');
    const checks = JSON.parse((await run('checks', 'ls', '--json')).stdout) as Array<{ id: string; name: string }>;
    const apiCheck = checks.find((c) => c.name === 'Public API')!;
    const held = await byName();
    expect(Object.keys(held).sort()).toEqual([
      'By hand',
      'Migration [vigil:ops/migration]',
      'Weekly deploy [vigil:ops/deploys]',
    ]);
    expect(held['Weekly deploy [vigil:ops/deploys]']).toMatchObject({
      tags: ['db'],
      checkIds: [],
      startsAt: '2036-12-02T22:00:00.000Z',
      endsAt: '2036-12-02T22:30:00.000Z',
      repeatUnit: 'WEEK',
      repeatInterval: 1,
      pauseRuns: true,
    });
    expect(held['Migration [vigil:ops/migration]']).toMatchObject({
      tags: [],
      checkIds: [apiCheck.id],
      repeatUnit: null,
      pauseRuns: false,
    });
    // The CLI's list shows the window as people read it.
    expect((await run('mw', 'ls')).stdout).toMatch(
      /Weekly deploy \[vigil:ops\/deploys\]\s+2036-12-02 22:00–22:30 UTC, every 1 week\s+tags db\s+runs\s+no/,
    );

    for (const args of [['deploy', '--preview'], ['deploy']]) {
      const again = await run(...args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('Nothing to change: the account matches vigil.config.yaml');
    }

    // An edit: a later end, written with another offset, and pauseRuns removed (back to its default).
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace('endsAt: 2036-12-05T04:00:00Z', 'endsAt: 2036-12-05T06:00+01:00')
        .replace(/ {4}pauseRuns: false\n/, ''),
    );
    const edited = await run('deploy', '--preview');
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toContain('~ update maintenance-window migration (Migration)');
    expect(edited.stdout).toContain('    endsAt: "2036-12-05T04:00:00.000Z" → "2036-12-05T05:00:00.000Z"');
    expect(edited.stdout).toContain('    pauseRuns: false → true');
    expect(edited.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete');
    const updated = await run('deploy');
    expect(updated.code, updated.stderr).toBe(0);
    const migration = (await byName())['Migration [vigil:ops/migration]']!;
    expect(migration).toMatchObject({ id: held['Migration [vigil:ops/migration]']!.id, pauseRuns: true });
    expect(migration.endsAt).toBe('2036-12-05T05:00:00.000Z');
    expect((await run('deploy')).stdout).toContain('Nothing to change');

    // The check a window names leaves the file with the window moved to another: the window's
    // update lands before the check's delete, and a window the file drops is deleted.
    const next = {
      ...project,
      checks: project.checks.filter((c) => c.logicalId !== 'api'),
      maintenanceWindows: [{ ...project.maintenanceWindows[1]!, checks: ['db'] }],
    };
    writeFileSync(file, stringify(next));
    const shrunk = await run('deploy', '--preview');
    expect(shrunk.stdout).toContain('- delete maintenance-window deploys (Weekly deploy)');
    expect(shrunk.stdout).toContain('    checks: ["api"] → ["db"]');
    const pruned = await run('deploy');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain('Deployed: 0 created, 1 updated, 2 deleted');
    const left = await byName();
    expect(Object.keys(left).sort()).toEqual(['By hand', 'Migration [vigil:ops/migration]']);
    const dbCheck = checks.find((c) => c.name === 'Database')!;
    expect(left['Migration [vigil:ops/migration]']!.checkIds).toEqual([dbCheck.id]);
    expect((await run('deploy', '--preview')).stdout).toContain('Nothing to change');
  });

  it('refuses unknown fields, checkIds and checks the file does not declare, before any request', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const broken = {
      ...project,
      maintenanceWindows: [
        { ...project.maintenanceWindows[0], checkIds: ['0b8c0000-0000-4000-8000-000000000000'], every: 'week' },
        { ...project.maintenanceWindows[1], checks: ['billing'] },
      ],
    };
    writeFileSync(join(dir, 'vigil.config.json'), JSON.stringify(broken));
    const refused = await vigil(['deploy', '--preview'], { env, cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('vigil.config.json is not a valid project file');
    expect(refused.stderr).toContain(
      'maintenanceWindows.0.checkIds: use checks: [<logicalId of a check in this file>]',
    );
    expect(refused.stderr).toContain('maintenanceWindows.0.every: is not a field of maintenance windows');

    writeFileSync(
      join(dir, 'vigil.config.json'),
      JSON.stringify({ ...project, maintenanceWindows: [broken.maintenanceWindows[1]] }),
    );
    const unknown = await vigil(['deploy'], { env, cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('maintenanceWindows.0.checks.0: no check with logicalId billing in this file');
    expect(JSON.parse((await vigil(['mw', 'ls', '--json'], { env })).stdout)).toEqual([]);
  });
});
