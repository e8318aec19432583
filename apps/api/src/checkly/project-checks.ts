import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { ValidationError } from '#core';
import {
  applyCheckDefaults,
  type Check,
  type CheckGroup,
  type CheckGroupInput,
  type CheckInput,
  type CheckType,
} from '#domain';
import { strictInput } from '#http';
import { markers } from '#project-markers';
import { checklyCheckBody, checkTypeByPath, toVigilCheck } from './check-input.ts';
import { groupBody, toVigilGroup } from './group-write.ts';
import { incidentTrigger } from './project-status-pages.ts';

/** How a project's checks and groups are translated and matched to what the project owns. */

/** A tag's length limit: the project's marker tags must fit it. */
const MAX_TAG = 64;
const checkTypes = new Set<string>(Object.values(checkTypeByPath));
/** As the single check routes take it: an unknown field, at any depth, is named rather than dropped. */
const strictCheckBody = strictInput(checklyCheckBody);
const strictGroupBody = strictInput(groupBody);

/**
 * What the CLI's bundles add to a check beside its script: the script's path (where it came from;
 * nothing runs differently) is taken; the rest Vigil cannot honour unless empty.
 */
function withoutBundleFields(payload: Record<string, unknown>): Record<string, unknown> {
  const {
    scriptPath: _path,
    setupScriptPath: _setup,
    tearDownScriptPath: _tearDown,
    dependencies,
    snapshots,
    setupScriptDependencies,
    tearDownScriptDependencies,
    ...rest
  } = payload;
  const set = (value: unknown) => Array.isArray(value) && value.length > 0;
  const why: string[] = [];
  if (set(dependencies))
    why.push(
      'dependencies: a Vigil browser or multi-step check runs one script; for a script that imports local files use a PlaywrightCheck',
    );
  if (set(snapshots)) why.push('snapshots: Vigil does not compare screenshots to stored snapshots');
  if (set(setupScriptDependencies) || set(tearDownScriptDependencies))
    why.push('setupScript, tearDownScript: not supported by Vigil');
  if (why.length > 0) throw new ValidationError(why.join('; '));
  return rest;
}

export interface Declared<I> {
  logicalId: string;
  input: I;
  /** The Vigil id when the project already owns it. */
  id?: string;
  unchanged: boolean;
  /** A check's group, by the group's logical id. */
  groupRef?: string;
}

export function markersFor(project: string, logicalId: string, label: string): string[] {
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

export function planGroup(
  project: string,
  logicalId: string,
  payload: Record<string, unknown>,
  current: CheckGroup | undefined,
  label: string,
  /** Slugs of the private locations the project assigns to this group. */
  slugs: string[] = [],
): Declared<CheckGroupInput> {
  // `v: 2` is CheckGroupV2's marker; the fields are the same.
  const { v: _version, ...rest } = payload;
  const parsed = strictGroupBody.safeParse(rest);
  if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
  const input = toVigilGroup(parsed.data);
  const tags = [
    ...(input.tags ?? []).filter((tag) => !markers.isMarkerTag(tag)),
    ...markersFor(project, logicalId, label),
  ];
  const locations = [...(input.locations ?? []), ...slugs];
  const wanted = { ...input, tags, ...(locations.length > 0 ? { locations } : {}) };
  return {
    logicalId,
    input: wanted,
    id: current?.id,
    unchanged: current !== undefined && sameFields(wanted, current, ['id']),
  };
}

export interface CheckContext {
  project: string;
  label: string;
  current: Check | undefined;
  groups: Set<string>;
  ownedGroups: Map<string, CheckGroup>;
  /** Slugs of the private locations the project assigns to this check. */
  slugs: string[];
  /** A PLAYWRIGHT check's project files, from its uploaded code bundle. */
  files?: unknown;
  services: Set<string>;
}

/**
 * Translates one check through the dialect's check translator; its group and status page service
 * come by reference, its private locations by assignment.
 */
export function planCheck(
  logicalId: string,
  payload: Record<string, unknown>,
  context: CheckContext,
): Declared<CheckInput> & { serviceRef?: string } {
  const { groupId, triggerIncident, ...rest } = payload;
  const groupRef = refOf(groupId);
  if (groupId !== null && groupId !== undefined && (!groupRef || !context.groups.has(groupRef)))
    throw new ValidationError('groupId: must refer to a check group of this project');
  let serviceRef: string | undefined;
  if (triggerIncident !== null && triggerIncident !== undefined) {
    const trigger = incidentTrigger.safeParse(triggerIncident);
    if (!trigger.success || !context.services.has(trigger.data.serviceId.ref))
      throw new ValidationError('triggerIncident.serviceId: must refer to a status page service of this project');
    if (trigger.data.notifySubscribers)
      throw new ValidationError('triggerIncident.notifySubscribers: Vigil status pages have no subscribers');
    serviceRef = trigger.data.serviceId.ref;
  }
  const parsed = strictCheckBody.safeParse(withoutBundleFields(rest));
  if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
  const type = parsed.data.checkType ?? '';
  if (!checkTypes.has(type)) throw new ValidationError(`checkType: Vigil does not support ${type || 'untyped'} checks`);
  const { current } = context;
  const groupVigilId = groupRef ? (context.ownedGroups.get(groupRef)?.id ?? null) : null;
  const input = toVigilCheck(parsed.data, type as CheckType, groupVigilId) as Record<string, unknown>;
  if (context.files !== undefined) input.files = context.files;
  if (context.slugs.length > 0) input.locations = [...((input.locations as string[]) ?? []), ...context.slugs];
  const tags = [
    ...((input.tags as string[]) ?? []).filter((tag) => !markers.isMarkerTag(tag)),
    ...markersFor(context.project, logicalId, context.label),
  ];
  const wanted = { ...input, tags } as CheckInput;
  const unchanged =
    current !== undefined &&
    (groupRef === undefined || groupVigilId !== null) &&
    sameFields(applyCheckDefaults(wanted), withoutPingToken(current), ['id', 'pingToken']);
  return { logicalId, input: wanted, id: current?.id, unchanged, groupRef, serviceRef };
}
