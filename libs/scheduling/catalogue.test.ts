import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyCheckDefaults, type Check, type CheckInput } from '#domain';
import type { RecordedEvent } from '#eventstore';
import { Catalogue, placementOf } from './catalogue.ts';

const check = (input: Record<string, unknown>): Check =>
  ({ id: randomUUID(), ...applyCheckDefaults({ name: 'c', ...input } as CheckInput) }) as Check;
const api = (extra: Record<string, unknown> = {}) =>
  check({ checkType: 'API', frequency: 5, request: { url: 'https://example.com' }, ...extra });

describe('placement', () => {
  it('runs a check from each of its locations, or from the default location when it names none', () => {
    expect(placementOf(api({ locations: ['eu', 'us'] }), 'us', 'eu')).toEqual({ kind: 'run', frequencyMs: 300_000 });
    expect(placementOf(api({ locations: ['eu'] }), 'us', 'us')).toBeNull();
    expect(placementOf(api(), 'eu', 'eu')).not.toBeNull();
    expect(placementOf(api(), 'us', 'eu')).toBeNull();
  });

  it('does not schedule external, deactivated or deleted checks', () => {
    expect(placementOf(check({ checkType: 'API' }), 'eu', 'eu')).toBeNull();
    expect(placementOf(check({ checkType: 'MULTI_STEP' }), 'eu', 'eu')).toBeNull();
    expect(placementOf(check({ checkType: 'PLAYWRIGHT' }), 'eu', 'eu')).toBeNull();
    expect(placementOf(api({ activated: false }), 'eu', 'eu')).toBeNull();
    expect(placementOf(null, 'eu', 'eu')).toBeNull();
  });

  it('watches a heartbeat from its first location only', () => {
    const hb = {
      ...check({ checkType: 'HEARTBEAT', locations: ['eu', 'us'] }),
      heartbeat: { period: 2, periodUnit: 'minutes', grace: 30, graceUnit: 'seconds', pingToken: 'a'.repeat(24) },
    } as Check;
    expect(placementOf(hb, 'eu', 'x')).toEqual({ kind: 'heartbeat', periodMs: 120_000, graceMs: 30_000 });
    expect(placementOf(hb, 'us', 'x')).toBeNull();
  });
});

describe('placement of external checks that ask for NO_DATA alerts', () => {
  it('given noDataAlerts, watches its results from one location, one frequency window as period and one as grace', () => {
    const external = check({ checkType: 'API', frequency: 5, noDataAlerts: true, locations: ['eu', 'us'] });
    const watch = { kind: 'heartbeat', periodMs: 300_000, graceMs: 300_000, watch: 'results' };
    expect(placementOf(external, 'eu', 'x')).toEqual(watch);
    expect(placementOf(external, 'us', 'x')).toBeNull();
    expect(placementOf(check({ checkType: 'API', frequency: 5, noDataAlerts: true }), 'x', 'x')).toEqual(watch);
  });

  it('given the setting off, deactivated, or a check Vigil runs, then no watch', () => {
    expect(placementOf(check({ checkType: 'API', noDataAlerts: false }), 'eu', 'eu')).toBeNull();
    expect(placementOf(check({ checkType: 'API', noDataAlerts: true, activated: false }), 'eu', 'eu')).toBeNull();
    expect(placementOf(api({ noDataAlerts: true }), 'eu', 'eu')).toEqual({ kind: 'run', frequencyMs: 300_000 });
  });
});

describe('catalogue', () => {
  let position = 0n;
  const event = (checkId: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
    id: randomUUID(),
    stream: `check-${checkId}`,
    type,
    data,
    revision: 0,
    position: ++position,
    metadata: { accountId: 'a', actor: 't', commandId: 'c', occurredAt: '2026-11-23T10:00:00Z', schemaVersion: 1 },
  });

  it('reports only changes of where and how often a check runs', () => {
    const catalogue = new Catalogue('eu', 'eu');
    const c = api();
    const at = '2026-11-23T10:00:00.000Z';
    const created = catalogue.apply(event(c.id, 'CheckCreated', { accountId: randomUUID(), check: c, at }));
    expect(created).toMatchObject({ checkId: c.id, atMs: Date.parse(at), placement: { kind: 'run' } });
    // A new header changes what runs, not when: no schedule change.
    const edited = { ...c, request: { ...(c as { request: object }).request, headers: [{ key: 'x', value: 'y' }] } };
    expect(catalogue.apply(event(c.id, 'CheckUpdated', { check: edited, at }))).toBeNull();
    expect(catalogue.apply(event(c.id, 'CheckUpdated', { check: { ...edited, frequency: 1 }, at }))).toMatchObject({
      placement: { kind: 'run', frequencyMs: 60_000 },
    });
    expect(catalogue.apply(event(c.id, 'CheckDeleted', { at }))).toMatchObject({ placement: null });
    expect(catalogue.get(c.id)?.check).toBeNull();
    // Other aggregates' streams (check-group-…) are not checks.
    const group = { id: randomUUID(), name: 'g', tags: [], runtimeId: null, locations: [], environmentVariables: [] };
    expect(
      catalogue.apply({ ...event('x', 'CheckGroupCreated', { accountId: 'a', group, at }), stream: 'check-group-x' }),
    ).toBeNull();
  });

  it("places a check that names no locations at its group's (a group change is picked up by claims and reconcile)", () => {
    const groupId = randomUUID();
    const at = '2026-11-23T10:00:00.000Z';
    const groupEvent = (type: string, locations: string[]) => ({
      ...event('x', type, {
        accountId: 'a',
        group: { id: groupId, name: 'g', tags: [], runtimeId: null, locations, environmentVariables: [] },
        at,
      }),
      stream: `check-group-${groupId}`,
    });
    const us = new Catalogue('us', 'eu');
    const eu = new Catalogue('eu', 'eu');
    const inGroup = api({ groupId });
    const own = api({ groupId, locations: ['eu'] });
    for (const catalogue of [us, eu]) {
      catalogue.apply(groupEvent('CheckGroupCreated', ['us']));
      catalogue.apply(event(inGroup.id, 'CheckCreated', { accountId: 'a', check: inGroup, at }));
      catalogue.apply(event(own.id, 'CheckCreated', { accountId: 'a', check: own, at }));
    }
    expect(us.placement(inGroup.id)).toEqual({ kind: 'run', frequencyMs: 300_000 });
    expect(eu.placement(inGroup.id)).toBeNull();
    expect(us.placement(own.id)).toBeNull();
    expect(eu.placement(own.id)).not.toBeNull();
    // The group drops its locations: the check is back at the default location.
    expect(us.apply(groupEvent('CheckGroupUpdated', []))).toBeNull();
    expect(us.placement(inGroup.id)).toBeNull();
    eu.apply(groupEvent('CheckGroupUpdated', []));
    expect(eu.placed().map(({ entry }) => entry.checkId)).toEqual(expect.arrayContaining([inGroup.id, own.id]));
  });
});

describe('NO_DATA watch of an external check at private locations', () => {
  const at = '2026-11-23T10:00:00.000Z';
  let position = 1_000n;
  const recorded = (stream: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
    id: randomUUID(),
    stream,
    type,
    data,
    revision: 0,
    position: ++position,
    metadata: { accountId: 'acc', actor: 't', commandId: 'c', occurredAt: at, schemaVersion: 1 },
  });
  const privateLocation = (slugName: string) => {
    const id = randomUUID();
    return recorded(`private-location-${id}`, 'PrivateLocationCreated', {
      accountId: 'acc',
      location: { id, name: slugName, slugName, icon: null, createdAt: at, updatedAt: at },
    });
  };

  it('passes over private slugs: the first runner location watches, else the default location', () => {
    const onlyPrivate = check({ checkType: 'API', frequency: 5, noDataAlerts: true, locations: ['office'] });
    const mixed = check({ checkType: 'API', frequency: 5, noDataAlerts: true, locations: ['office', 'us'] });
    const eu = new Catalogue('eu', 'eu');
    const us = new Catalogue('us', 'eu');
    for (const catalogue of [eu, us]) {
      catalogue.apply(privateLocation('office'));
      for (const c of [onlyPrivate, mixed])
        catalogue.apply(recorded(`check-${c.id}`, 'CheckCreated', { accountId: 'acc', check: c, at }));
    }
    expect(eu.placement(onlyPrivate.id)).toMatchObject({ kind: 'heartbeat', watch: 'results' });
    expect(us.placement(onlyPrivate.id)).toBeNull();
    expect(us.placement(mixed.id)).toMatchObject({ kind: 'heartbeat', watch: 'results' });
    expect(eu.placement(mixed.id)).toBeNull();
    // Without knowing the slug is private (the rule before), nobody would watch the first one.
    expect(placementOf(onlyPrivate, 'eu', 'eu')).toBeNull();
  });
});
