import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { ValidationError } from '#core';
import { markers } from '#project-markers';
import { applyCheckDefaults, type CheckGroupInput, type CheckInput, type CheckType } from '#domain';
import type { Access } from '../access.ts';
import type { ChannelService } from '../services/channels.ts';
import type { MaintenanceWindowService } from '../services/maintenance-windows.ts';
import type { ApiServices } from '../services/index.ts';
import { checklyCheckBody, checkTypeByPath, toVigilCheck } from './check-input.ts';
import { groupBody, toVigilGroup } from './group-write.ts';
import { channelDiff, planChannels, type ChannelPlan } from './project-channels.ts';
import { planWindows, windowDiff, type WindowPlan } from './project-windows.ts';
import { numericId } from './ids.ts';

/** What `checkly deploy` posts (gzip; the server decodes it): the project and its constructs. */
/** A project's logical id ends up in marker tags and names, so it cannot hold what ends a marker. */
export const projectLogicalId = z
  .string()
  .min(1)
  .max(48)
  .regex(
    /^[^/\]\s]+$/,
    'must be 1-48 characters without "/", "]" or spaces (Vigil marks what the project owns with it)',
  );

export const deployBody = z.object({
  project: z.object({ logicalId: projectLogicalId, name: z.string().max(2048) }),
  resources: z
    .array(
      z.object({
        logicalId: z.string().min(1).max(256),
        type: z.string().max(64),
        member: z.boolean().nullish(),
        payload: z.record(z.string(), z.unknown()),
      }),
    )
    .max(2000),
  // The CLI's bundle of shared files and git metadata: nothing in them changes a resource.
  sharedFiles: z.array(z.unknown()).nullish(),
  repoInfo: z.unknown().nullish(),
});
export type DeployBody = z.output<typeof deployBody>;

/** A tag's length limit: the project's marker tags must fit it. */
const MAX_TAG = 64;

export type DiffAction = 'CREATE' | 'UPDATE' | 'DELETE';
export interface DiffEntry {
  type: 'check' | 'check-group' | 'alert-channel' | 'maintenance-window';
  logicalId: string;
  physicalId: string | number | null;
  action: DiffAction;
}

interface Declared<I> {
  logicalId: string;
  input: I;
  /** The Vigil id when the project already owns it. */
  id?: string;
  unchanged: boolean;
  /** A check's group, by the group's logical id. */
  groupRef?: string;
}

export interface ProjectPlan {
  groups: Declared<CheckGroupInput>[];
  checks: Declared<CheckInput>[];
  deleteChecks: Array<{ id: string; logicalId: string }>;
  deleteGroups: Array<{ id: string; logicalId: string }>;
  channels: ChannelPlan;
  windows: WindowPlan;
}

const checkTypes = new Set<string>(Object.values(checkTypeByPath));

/** Constructs Vigil has no counterpart for in a project, and what to use instead. */
const refusedTypes: Record<string, string> = {
  'status-page':
    "Vigil's status pages list checks, not Checkly's status page services; create one with POST /v1/status-pages",
  'status-page-service': "Vigil's status pages list checks; there are no status page services",
  'private-location': 'not deployed by projects yet; create it with POST /v1/private-locations',
  'private-location-check-assignment': 'not deployed by projects yet; list the location among the check’s locations',
  'private-location-group-assignment': 'a Vigil group has no locations',
  dashboard: 'Vigil does not support dashboards',
};

function markersFor(project: string, logicalId: string, label: string): string[] {
  const tags = [markers.projectTag(project), markers.logicalTag(logicalId)];
  const long = tags.find((tag) => tag.length > MAX_TAG);
  if (long)
    throw new ValidationError(
      `${label}: its marker tag "${long}" is over ${MAX_TAG} characters; shorten the logicalId`,
    );
  return tags;
}

/** A heartbeat's ping token is minted by Vigil, never declared. */
function withoutPingToken(check: Record<string, unknown>): Record<string, unknown> {
  const heartbeat = check.heartbeat as Record<string, unknown> | undefined;
  if (!heartbeat) return check;
  const { pingToken: _token, ...rest } = heartbeat;
  return { ...check, heartbeat: rest };
}

/** A resource's `{ref: logicalId}` pointer to another construct of the project. */
function refOf(value: unknown): string | undefined {
  const parsed = z.object({ ref: z.string() }).safeParse(value);
  return parsed.success ? parsed.data.ref : undefined;
}

/** Same content: every field either side has is equal, an absent one counting as empty. */
function sameFields(wanted: Record<string, unknown>, current: Record<string, unknown>, ignore: string[]): boolean {
  const empty = (value: unknown) =>
    value === undefined || value === null || (Array.isArray(value) && value.length === 0);
  const keys = new Set([...Object.keys(wanted), ...Object.keys(current)].filter((key) => !ignore.includes(key)));
  return [...keys].every((key) =>
    empty(wanted[key]) && empty(current[key]) ? true : isDeepStrictEqual(wanted[key], current[key]),
  );
}

/**
 * Translates every construct through the dialect's own translators and matches it to what the
 * project already owns by (project, logicalId). Every construct Vigil cannot honour is named in one
 * 400, so nothing is applied in part.
 */
export async function planProject(
  services: ApiServices,
  channels: ChannelService,
  windows: MaintenanceWindowService,
  access: Access,
  body: DeployBody,
): Promise<ProjectPlan> {
  const project = body.project.logicalId;
  const refused: string[] = [];
  const label = (type: string, logicalId: string) => `${type} "${logicalId}"`;
  const [existingChecks, existingGroups] = await Promise.all([
    services.readModels.checks(access.accountId),
    services.readModels.checkGroups(access.accountId),
  ]);
  const ownedChecks = new Map(
    existingChecks.flatMap((view) => {
      const logicalId = markers.logicalOf(project, view.check.tags ?? []);
      return logicalId ? [[logicalId, view.check] as const] : [];
    }),
  );
  const ownedGroups = new Map(
    existingGroups.flatMap((view) => {
      const logicalId = markers.logicalOf(project, view.group.tags ?? []);
      return logicalId ? [[logicalId, view.group] as const] : [];
    }),
  );
  const plan: ProjectPlan = {
    groups: [],
    checks: [],
    deleteChecks: [],
    deleteGroups: [],
    channels: { channels: [], subscriptions: [], deleteChannels: [] },
    windows: { windows: [], deleteWindows: [] },
  };
  const channelTypes = new Set(['alert-channel', 'alert-channel-subscription']);
  const isOther = (type: string) => channelTypes.has(type) || type === 'maintenance-window';
  const groupIds = new Set(body.resources.filter((r) => r.type === 'check-group').map((r) => r.logicalId));

  for (const resource of body.resources) {
    const name = label(resource.type, resource.logicalId);
    try {
      if (resource.type === 'check-group') {
        // `v: 2` is CheckGroupV2's marker; the fields are the same.
        const { v: _version, ...payload } = resource.payload;
        const parsed = groupBody.safeParse(payload);
        if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
        const input = toVigilGroup(parsed.data);
        const tags = [
          ...(input.tags ?? []).filter((tag) => !markers.isMarkerTag(tag)),
          ...markersFor(project, resource.logicalId, name),
        ];
        const wanted = { ...input, tags };
        const current = ownedGroups.get(resource.logicalId);
        plan.groups.push({
          logicalId: resource.logicalId,
          input: wanted,
          id: current?.id,
          unchanged: current !== undefined && sameFields(wanted, current, ['id']),
        });
      } else if (resource.type === 'check') {
        const { groupId, ...payload } = resource.payload;
        const groupRef = refOf(groupId);
        if (groupId !== null && groupId !== undefined && (!groupRef || !groupIds.has(groupRef)))
          throw new ValidationError('groupId: must refer to a check group of this project');
        const parsed = checklyCheckBody.safeParse(payload);
        if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
        const type = parsed.data.checkType ?? '';
        if (!checkTypes.has(type))
          throw new ValidationError(`checkType: Vigil does not support ${type || 'untyped'} checks`);
        const current = ownedChecks.get(resource.logicalId);
        const groupVigilId = groupRef ? (ownedGroups.get(groupRef)?.id ?? null) : null;
        const input = toVigilCheck(parsed.data, type as CheckType, groupVigilId);
        const tags = [
          ...(input.tags ?? []).filter((tag) => !markers.isMarkerTag(tag)),
          ...markersFor(project, resource.logicalId, name),
        ];
        const wanted = { ...input, tags };
        const unchanged =
          current !== undefined &&
          (groupRef === undefined || groupVigilId !== null) &&
          sameFields(applyCheckDefaults(wanted), withoutPingToken(current), ['id', 'pingToken']);
        plan.checks.push({ logicalId: resource.logicalId, input: wanted, id: current?.id, unchanged, groupRef });
      } else if (!isOther(resource.type)) {
        throw new ValidationError(
          refusedTypes[resource.type] ?? `Vigil's checkly deploy does not support ${resource.type} constructs`,
        );
      }
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      refused.push(`${name}: ${error.message}`);
    }
  }
  const declared = (type: string) => new Set(body.resources.filter((r) => r.type === type).map((r) => r.logicalId));
  const keptChecks = declared('check');
  const keptGroups = declared('check-group');
  plan.channels = await planChannels(
    services,
    channels,
    access,
    project,
    body.resources.filter((r) => channelTypes.has(r.type)),
    { checks: keptChecks, groups: keptGroups },
    refused,
  );
  plan.windows = await planWindows(
    windows,
    access,
    project,
    body.resources.filter((r) => r.type === 'maintenance-window'),
    refused,
  );
  if (refused.length > 0) throw new ValidationError(`The project cannot be deployed: ${refused.join('; ')}`);
  for (const [logicalId, check] of ownedChecks)
    if (!keptChecks.has(logicalId)) plan.deleteChecks.push({ id: check.id, logicalId });
  for (const [logicalId, group] of ownedGroups)
    if (!keptGroups.has(logicalId)) plan.deleteGroups.push({ id: group.id, logicalId });
  return plan;
}

/** The diff in the answer shape the CLI prints (`{type, logicalId, physicalId, action}`). */
export function diffOf(plan: ProjectPlan): DiffEntry[] {
  const action = (id: string | undefined): DiffAction => (id ? 'UPDATE' : 'CREATE');
  return [
    ...plan.groups.map((g) => ({
      type: 'check-group' as const,
      logicalId: g.logicalId,
      physicalId: g.id ? numericId(g.id) : null,
      action: action(g.id),
    })),
    ...plan.checks.map((c) => ({
      type: 'check' as const,
      logicalId: c.logicalId,
      physicalId: c.id ?? null,
      action: action(c.id),
    })),
    ...plan.deleteChecks.map((c) => ({
      type: 'check' as const,
      logicalId: c.logicalId,
      physicalId: c.id,
      action: 'DELETE' as const,
    })),
    ...plan.deleteGroups.map((g) => ({
      type: 'check-group' as const,
      logicalId: g.logicalId,
      physicalId: numericId(g.id),
      action: 'DELETE' as const,
    })),
    ...channelDiff(plan.channels),
    ...windowDiff(plan.windows),
  ];
}
