import { describe, expect, it } from 'vitest';
import { planDeploy, type RemoteState } from './plan.ts';
import { projectFileSchema } from './schema.ts';
import { windowBody } from './windows.ts';

const CHECK_ID = '00000000-0000-4000-8000-000000000002';
const HAND_CHECK_ID = '00000000-0000-4000-8000-000000000004';
const WINDOW_ID = '00000000-0000-4000-8000-000000000005';

const file = (windows: unknown[] = [], extra: Record<string, unknown> = {}) =>
  projectFileSchema.safeParse({
    project: 'shop',
    checks: [{ logicalId: 'db', name: 'DB', checkType: 'API' }],
    maintenanceWindows: windows,
    ...extra,
  });
const parsed = (windows: unknown[]) => {
  const result = file(windows);
  if (!result.success) throw new Error(JSON.stringify(result.error.issues));
  return result.data;
};
const issues = (windows: unknown[]) => {
  const result = file(windows);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

const nightly = {
  logicalId: 'nightly',
  name: 'Nightly',
  checks: ['db'],
  tags: ['shop'],
  startsAt: '2026-12-01T23:00+01:00',
  endsAt: '2026-12-01T23:30+01:00',
  repeatUnit: 'day',
};

/** The server's side after deploying `nightly` and the check: UTC times, defaults, the marker in the name. */
function remote(window: Record<string, unknown> = {}): RemoteState {
  return {
    groups: [],
    channels: [],
    checks: [
      {
        id: CHECK_ID,
        logicalId: 'db',
        raw: {
          id: CHECK_ID,
          name: 'DB',
          checkType: 'API',
          activated: true,
          muted: false,
          frequency: 10,
          tags: ['vigil:project=shop', 'vigil:logical=db'],
          locations: [],
          groupId: null,
          degradedResponseTime: 5000,
          maxResponseTime: 20000,
        },
      },
    ],
    windows: [
      {
        id: WINDOW_ID,
        logicalId: 'nightly',
        raw: {
          id: WINDOW_ID,
          name: 'Nightly [vigil:shop/nightly]',
          tags: ['shop'],
          checkIds: [CHECK_ID],
          startsAt: '2026-12-01T22:00:00.000Z',
          endsAt: '2026-12-01T22:30:00.000Z',
          repeatUnit: 'DAY',
          repeatInterval: 1,
          repeatEndsAt: null,
          pauseRuns: true,
          activeNow: false,
          ...window,
        },
      },
    ],
  };
}

describe('maintenance windows in the project file', () => {
  it('reads times with any offset as UTC, and a repeat unit alone as every one of it', () => {
    const [window] = parsed([nightly]).maintenanceWindows;
    expect(window).toMatchObject({
      startsAt: '2026-12-01T22:00:00.000Z',
      endsAt: '2026-12-01T22:30:00.000Z',
      repeatUnit: 'DAY',
      repeatInterval: 1,
    });
  });

  it('refuses unknown fields, server ids, checks not in the file and times without a zone, naming each', () => {
    expect(
      issues([
        { ...nightly, checks: ['db', 'nope'], checkIds: [CHECK_ID], pause: false },
        { ...nightly, logicalId: 'b', startsAt: '2026-12-01T22:00', repeatUnit: 'YEAR' },
      ]),
    ).toEqual([
      'maintenanceWindows.0.checkIds: use checks: [<logicalId of a check in this file>]',
      expect.stringMatching(
        /^maintenanceWindows\.0\.pause: is not a field of maintenance windows \(they take logicalId/,
      ),
      expect.stringMatching(/^maintenanceWindows\.1\.startsAt: "2026-12-01T22:00" has no time zone/),
      'maintenanceWindows.1.repeatUnit: must be DAY, WEEK or MONTH',
    ]);
    expect(issues([nightly, { ...nightly, checks: ['nope'] }])).toEqual([
      'maintenanceWindows.1.logicalId: duplicate nightly',
      'maintenanceWindows.1.checks.0: no check with logicalId nope in this file',
    ]);
  });

  it('sends the marker in the name and the checks by id; fields left out are the API defaults', () => {
    const [window] = parsed([nightly]).maintenanceWindows;
    expect(windowBody(window!, 'shop', new Map([['db', CHECK_ID]]))).toEqual({
      name: 'Nightly [vigil:shop/nightly]',
      tags: ['shop'],
      checkIds: [CHECK_ID],
      startsAt: '2026-12-01T22:00:00.000Z',
      endsAt: '2026-12-01T22:30:00.000Z',
      repeatUnit: 'DAY',
      repeatInterval: 1,
    });
    expect(() => windowBody(window!, 'shop', new Map())).toThrow('check db has no id yet');
  });
});

describe('planning maintenance windows', () => {
  it('creates them after the checks they name', () => {
    const steps = planDeploy(parsed([nightly]), { groups: [], checks: [], channels: [], windows: [] });
    expect(steps.map((s) => `${s.action} ${s.kind} ${s.logicalId}`)).toEqual([
      'create check db',
      'create maintenance-window nightly',
    ]);
    expect(steps[1]!.changes).toContainEqual({ path: 'startsAt', old: undefined, new: '2026-12-01T22:00:00.000Z' });
  });

  it('is empty when the server holds the file, however the file writes the offset', () => {
    expect(planDeploy(parsed([nightly]), remote())).toEqual([]);
    const sameInstant = { ...nightly, startsAt: '2026-12-01T22:00:00Z', endsAt: '2026-12-02T03:30+05:00' };
    expect(planDeploy(parsed([sameInstant]), remote())).toEqual([]);
  });

  it('shows a change field by field; a line removed from the file goes back to its default', () => {
    const { tags: _tags, ...withoutTags } = nightly;
    const steps = planDeploy(
      parsed([{ ...withoutTags, endsAt: '2026-12-02T00:00+01:00' }]),
      remote({ pauseRuns: false, checkIds: [CHECK_ID, HAND_CHECK_ID] }),
    );
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ action: 'update', kind: 'maintenance-window', id: WINDOW_ID, name: 'Nightly' });
    expect(steps[0]!.changes).toEqual([
      // A check outside the project shows by id: the file cannot name it, so deploy drops it.
      { path: 'checks', old: ['db', HAND_CHECK_ID], new: ['db'] },
      { path: 'endsAt', old: '2026-12-01T22:30:00.000Z', new: '2026-12-01T23:00:00.000Z' },
      { path: 'tags', old: ['shop'], new: [] },
      { path: 'pauseRuns', old: false, new: true },
    ]);
  });

  it('deletes a window the file no longer names, before the checks it named', () => {
    expect(planDeploy(parsed([]), remote()).map((s) => `${s.action} ${s.kind} ${s.logicalId} (${s.name})`)).toEqual([
      'delete maintenance-window nightly (Nightly)',
    ]);
    const emptied = projectFileSchema.parse({ project: 'shop' });
    expect(planDeploy(emptied, remote()).map((s) => `${s.action} ${s.kind} ${s.logicalId}`)).toEqual([
      'delete maintenance-window nightly',
      'delete check db',
    ]);
  });
});
