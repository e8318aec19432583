import { channelDefaults, channelView, declaredView } from './channels.ts';
import { diffFields, type FieldChange } from './diff.ts';
import {
  markers,
  type DeclaredChannel,
  type DeclaredCheck,
  type DeclaredGroup,
  type DeclaredWindow,
  type ProjectFile,
} from './schema.ts';
import { WINDOW_DEFAULTS, windowView } from './windows.ts';

type Plain = Record<string, unknown>;
export type Kind = 'check-group' | 'check' | 'alert-channel' | 'maintenance-window' | 'subscription';
export type Action = 'create' | 'update' | 'delete';

/** A resource of the account that carries this project's marker. */
export interface Managed {
  id: string;
  logicalId: string;
  /** As the API answered. */
  raw: Plain;
}

export interface ManagedChannel extends Managed {
  subscriptions: Array<{ checkId?: string | null; groupId?: string | null; activated: boolean }>;
}

export interface RemoteState {
  groups: Managed[];
  checks: Managed[];
  channels: ManagedChannel[];
  windows: Managed[];
}

export interface Subscription {
  channel: string;
  check?: string;
  group?: string;
}

export interface Step {
  action: Action;
  kind: Kind;
  logicalId: string;
  name: string;
  /** The server's id, for updates and deletes. */
  id?: string;
  changes: FieldChange[];
  /** What the file declares, for creates and updates. */
  declared?: DeclaredGroup | DeclaredCheck | DeclaredChannel | DeclaredWindow;
  subscription?: Subscription;
}

// What the API applies when a field is left out (libs/domain: check, check group and alert
// channel schemas), so that removing a line from the file shows as a change back to the default.
const CHECK_DEFAULTS: Plain = {
  activated: true,
  muted: false,
  frequency: 10,
  tags: [],
  locations: [],
  group: null,
  sslCheckDomain: null,
  runtimeId: null,
  alertSettings: null,
  noDataAlerts: false,
};
const RESPONSE_TIMES: Record<string, [number, number]> = {
  API: [5_000, 20_000],
  URL: [3_000, 5_000],
  DNS: [500, 1_000],
  // A script's maxResponseTime is its run budget: 240 s unless the check says otherwise.
  MULTI_STEP: [30_000, 240_000],
  PLAYWRIGHT: [30_000, 240_000],
};
const GROUP_DEFAULTS: Plain = { tags: [], runtimeId: null, locations: [], environmentVariables: [] };
function checkDefaults(declared: { checkType: unknown; script?: unknown }): Plain {
  // A BROWSER check written as a script runs, and defaults, like PLAYWRIGHT.
  const type = declared.checkType === 'BROWSER' && declared.script !== undefined ? 'PLAYWRIGHT' : declared.checkType;
  const [degraded, max] = RESPONSE_TIMES[String(type)] ?? [10_000, 20_000];
  return { ...CHECK_DEFAULTS, degradedResponseTime: degraded, maxResponseTime: max };
}

const withoutLogicalId = ({ logicalId: _id, ...rest }: { logicalId: string } & Plain): Plain => rest;
const userTags = (raw: Plain): string[] =>
  (Array.isArray(raw.tags) ? (raw.tags as string[]) : []).filter((tag) => !markers.isMarkerTag(tag));

/** A check as the file states it, against the server's check in the same terms (group by logical id). */
function checkView(raw: Plain, groupLogical: Map<string, string>): Plain {
  const groupId = typeof raw.groupId === 'string' ? raw.groupId : null;
  return { ...raw, tags: userTags(raw), group: groupId === null ? null : (groupLogical.get(groupId) ?? groupId) };
}

function reconcile<D extends { logicalId: string; name: string }>(
  kind: Kind,
  declared: readonly D[],
  remote: readonly Managed[],
  compare: (declared: D, current: Managed) => FieldChange[],
): { upserts: Step[]; deletes: Step[] } {
  // The first (oldest) holder of a logical id is the resource; a later duplicate (two deploys racing)
  // is deleted like anything else the file does not declare.
  const byLogical = new Map<string, Managed>();
  for (const item of remote) if (!byLogical.has(item.logicalId)) byLogical.set(item.logicalId, item);
  const upserts: Step[] = [];
  for (const item of declared) {
    const current = byLogical.get(item.logicalId);
    const base = { kind, logicalId: item.logicalId, name: item.name, declared: item as never };
    if (!current) {
      const fields = withoutLogicalId(item as { logicalId: string } & Plain);
      const changes = Object.entries(fields).map(([path, value]) => ({ path, old: undefined, new: value }));
      upserts.push({ ...base, action: 'create', changes });
      continue;
    }
    const changes = compare(item, current);
    if (changes.length > 0) upserts.push({ ...base, action: 'update', id: current.id, changes });
  }
  const wanted = new Set(declared.map((item) => item.logicalId));
  const deletes = remote
    .filter((item) => !wanted.has(item.logicalId) || byLogical.get(item.logicalId) !== item)
    .map((item): Step => ({
      action: 'delete',
      kind,
      logicalId: item.logicalId,
      name: displayName(kind, item.raw),
      id: item.id,
      changes: [],
    }));
  return { upserts, deletes };
}

/** The name the file gives a resource: channels and windows carry their marker in the name. */
function displayName(kind: Kind, raw: Plain): string {
  if (kind === 'alert-channel') return String(channelView(raw).name);
  if (kind === 'maintenance-window') return markers.parseMarkedName(String(raw.name))?.name ?? String(raw.name);
  return String(raw.name);
}

const subscriptionKey = (s: Subscription) =>
  `${s.channel}|${s.check !== undefined ? `check:${s.check}` : `group:${s.group}`}`;
export const subscriptionLabel = (s: Subscription) =>
  `${s.channel} → ${s.check !== undefined ? `check ${s.check}` : `group ${s.group}`}`;

/**
 * The plan: what to create, update and delete so the account matches the file. Pure, so the
 * preview and the deploy agree. Order: groups, checks, channels, maintenance windows (they name
 * checks by id), then subscriptions; deletes in reverse, subscriptions first and groups last (a
 * group must be empty to go). A window's update comes before any check's delete, so a window never
 * names a check that is gone.
 */
export function planDeploy(project: ProjectFile, remote: RemoteState): Step[] {
  const groupLogical = new Map(remote.groups.map((group) => [group.id, group.logicalId]));
  const checkLogical = new Map(remote.checks.map((check) => [check.id, check.logicalId]));

  const groups = reconcile('check-group', project.checkGroups, remote.groups, (declared, current) =>
    diffFields(withoutLogicalId(declared), { ...current.raw, tags: userTags(current.raw) }, GROUP_DEFAULTS),
  );
  const checks = reconcile('check', project.checks, remote.checks, (declared, current) =>
    diffFields(withoutLogicalId(declared), checkView(current.raw, groupLogical), checkDefaults(declared)),
  );
  const channels = reconcile('alert-channel', project.alertChannels, remote.channels, (declared, current) =>
    diffFields(declaredView(declared), channelView(current.raw), channelDefaults(declared)),
  );
  const windows = reconcile('maintenance-window', project.maintenanceWindows, remote.windows, (declared, current) =>
    diffFields(withoutLogicalId(declared), windowView(current.raw, checkLogical), WINDOW_DEFAULTS),
  );

  const declaredSubs = new Map(project.subscriptions.map((s) => [subscriptionKey(s), s]));
  const currentSubs = new Map<string, Subscription & { channelId: string }>();
  for (const channel of remote.channels) {
    for (const s of channel.subscriptions) {
      if (!s.activated) continue;
      // Only subscriptions between two resources of this project: one to a hand-made check stays.
      const check = s.checkId ? checkLogical.get(s.checkId) : undefined;
      const group = s.groupId ? groupLogical.get(s.groupId) : undefined;
      if (check === undefined && group === undefined) continue;
      const sub = { channel: channel.logicalId, channelId: channel.id, ...(check ? { check } : { group }) };
      currentSubs.set(subscriptionKey(sub), sub);
    }
  }
  const subStep = (action: Action, s: Subscription, id?: string): Step => ({
    action,
    kind: 'subscription',
    logicalId: subscriptionLabel(s),
    name: subscriptionLabel(s),
    ...(id ? { id } : {}),
    changes: [],
    subscription: { channel: s.channel, ...(s.check ? { check: s.check } : { group: s.group }) },
  });
  const subCreates = [...declaredSubs].filter(([key]) => !currentSubs.has(key)).map(([, s]) => subStep('create', s));
  // A subscription whose channel or target is deleted goes with it: no separate step.
  const gone = new Set(
    [...channels.deletes, ...checks.deletes, ...groups.deletes].map((s) => `${s.kind}:${s.logicalId}`),
  );
  const subDeletes = [...currentSubs]
    .filter(([key]) => !declaredSubs.has(key))
    .map(([, s]) => s)
    .filter(
      (s) =>
        !gone.has(`alert-channel:${s.channel}`) &&
        !(s.check && gone.has(`check:${s.check}`)) &&
        !(s.group && gone.has(`check-group:${s.group}`)),
    )
    .map((s) => subStep('delete', s, s.channelId));

  return [
    ...groups.upserts,
    ...checks.upserts,
    ...channels.upserts,
    ...windows.upserts,
    ...subCreates,
    ...subDeletes,
    ...windows.deletes,
    ...channels.deletes,
    ...checks.deletes,
    ...groups.deletes,
  ];
}
