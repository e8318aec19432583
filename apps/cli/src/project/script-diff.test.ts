import { describe, expect, it } from 'vitest';
import { planDeploy, type RemoteState } from './plan.ts';
import { renderPlan } from './render.ts';
import { projectFileSchema } from './schema.ts';
import { changedLines, filesChangeLines, scriptChangeLines } from './script-diff.ts';

const CHECK_ID = '00000000-0000-4000-8000-000000000002';
const SCRIPT = [
  "import { test, expect } from '@playwright/test';",
  '',
  "test('health', async ({ request }) => {",
  "  const response = await request.get('https://shop.example/health');",
  '  expect(response.status()).toBe(200);',
  '});',
  '',
].join('\n');
const SIZE = `6 lines, ${Buffer.byteLength(SCRIPT)} bytes`;

const file = (script: string) =>
  projectFileSchema.parse({
    project: 'shop',
    checks: [{ logicalId: 'health', name: 'Health', checkType: 'MULTI_STEP', frequency: 5, script }],
  });

/** The server's side after a deploy: what the API answers for a MULTI_STEP check, defaults filled in. */
const remote = (script: string): RemoteState => ({
  groups: [],
  channels: [],
  windows: [],
  checks: [
    {
      id: CHECK_ID,
      logicalId: 'health',
      raw: {
        id: CHECK_ID,
        name: 'Health',
        checkType: 'MULTI_STEP',
        activated: true,
        muted: false,
        frequency: 5,
        tags: ['vigil:project=shop', 'vigil:logical=health'],
        locations: [],
        groupId: null,
        sslCheckDomain: null,
        runtimeId: null,
        alertSettings: null,
        degradedResponseTime: 30_000,
        maxResponseTime: 240_000,
        script,
      },
    },
  ],
});

describe('script changes in the deploy plan', () => {
  it('an unchanged script (with the script defaults on the server) plans nothing', () => {
    expect(planDeploy(file(SCRIPT), remote(SCRIPT))).toEqual([]);
  });

  it('an edited script shows the changed lines, not a JSON string', () => {
    const edited = SCRIPT.replace('toBe(200)', 'toBe(204)');
    const lines = renderPlan(planDeploy(file(edited), remote(SCRIPT)));
    expect(lines).toEqual([
      '~ update check health (Health)',
      `    script: changed at line 5 (${SIZE} → ${SIZE})`,
      '      -   expect(response.status()).toBe(200);',
      '      +   expect(response.status()).toBe(204);',
    ]);
  });

  it('a new script check shows its size; removed lines and long insertions are shown and capped', () => {
    expect(renderPlan(planDeploy(file(SCRIPT), { groups: [], channels: [], checks: [], windows: [] }))).toContain(
      `    script: ${SIZE}`,
    );
    const longer = SCRIPT + Array.from({ length: 20 }, (_, i) => `// note ${i}`).join('\n');
    const lines = scriptChangeLines(SCRIPT, longer, '');
    expect(lines.filter((line) => line.startsWith('  + '))).toHaveLength(13);
    expect(lines.at(-1)).toBe('  + … 8 more lines');
    expect(changedLines('a\nb\nc', 'a\nc')).toEqual({ at: 2, removed: ['b'], added: [] });
  });

  it('a test project lists the files added, changed and removed', () => {
    const before = [
      { path: 'a.spec.ts', content: 'one\n' },
      { path: 'b.spec.ts', content: 'two\n' },
    ];
    const after = [
      { path: 'a.spec.ts', content: 'one\nmore\n' },
      { path: 'c.spec.ts', content: 'three\n' },
    ];
    expect(filesChangeLines(before, after, '')).toEqual([
      'files: 2 files (was 2)',
      '  ~ a.spec.ts (changed at line 2)',
      '  + c.spec.ts (1 lines, 6 bytes)',
      '  - b.spec.ts',
    ]);
  });
});
