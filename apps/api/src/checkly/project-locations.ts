import { z } from 'zod';
import type { PrivateLocationInput } from '#domain';
import { markers } from '#project-markers';
import type { Access } from '../access.ts';
import type { ApiServices } from '../services/index.ts';

/**
 * A project's private locations (`PrivateLocation`) and their assignments to checks and groups. Vigil's
 * locations carry no tags, so, as channels and windows, the marker ends the name:
 * `Office [vigil:website/office]`. A check runs in a location when a
 * `private-location-check-assignment` names both; Vigil lists the location's slug among the
 * check's locations (a group's likewise, through `private-location-group-assignment`). `PrivateLocation.fromId()` (a non-member) names an existing location by id.
 */

export interface LocationPlan {
  locations: Array<{ logicalId: string; input: PrivateLocationInput; id?: string; unchanged: boolean }>;
  deleteLocations: Array<{ id: string; logicalId: string }>;
  /** Per check logical id: the slugs its assignments add to its locations, in declaration order. */
  slugsByCheck: Map<string, string[]>;
  /** Per group logical id, likewise. */
  slugsByGroup: Map<string, string[]>;
  /** Slugs of locations this deploy creates: a dry run cannot name them yet. */
  newSlugs: Set<string>;
}

type Resource = { logicalId: string; type: string; member?: boolean | null; physicalId?: unknown; payload: unknown };

const ref = z.object({ ref: z.string().max(256) });
const locationPayload = z.strictObject({
  name: z.string().max(255),
  slugName: z.string().max(64),
  icon: z.string().max(64).nullish(),
  proxyUrl: z.string().max(2048).nullish(),
});
const assignmentPayload = z.strictObject({ privateLocationId: ref, checkId: ref });
const groupAssignmentPayload = z.strictObject({ privateLocationId: ref, groupId: ref });

export const locationTypes = new Set([
  'private-location',
  'private-location-check-assignment',
  'private-location-group-assignment',
]);

export async function planLocations(
  services: ApiServices,
  access: Access,
  project: string,
  resources: Resource[],
  declared: { checks: Set<string>; groups: Set<string> },
  /** Slugs the account's checks list now: such a location's slug cannot change in place. */
  usedSlugs: Set<string>,
  refused: string[],
): Promise<LocationPlan> {
  const views = await services.privateLocations.reads.locations(access.accountId);
  const owned = new Map<string, (typeof views)[number]['location']>();
  for (const view of views) {
    const marker = markers.parseMarkedName(view.location.name);
    if (marker?.project === project) owned.set(marker.logicalId, view.location);
  }
  const plan: LocationPlan = {
    locations: [],
    deleteLocations: [],
    slugsByCheck: new Map(),
    slugsByGroup: new Map(),
    newSlugs: new Set(),
  };
  /** Location logical id → slug: the project's own, and the existing ones it names by id. */
  const slugs = new Map<string, string>();
  const fail = (resource: Resource, message: string) =>
    refused.push(`${resource.type} "${resource.logicalId}": ${message}`);

  for (const resource of resources.filter((r) => r.type === 'private-location')) {
    if (resource.member === false) {
      const existing = views.find((view) => view.location.id === resource.physicalId);
      if (existing) slugs.set(resource.logicalId, existing.location.slugName);
      else fail(resource, `private location ${String(resource.physicalId)} not found in this account`);
      continue;
    }
    const parsed = locationPayload.safeParse(resource.payload);
    if (!parsed.success) {
      fail(resource, z.prettifyError(parsed.error));
      continue;
    }
    const { name, slugName, icon, proxyUrl } = parsed.data;
    if (proxyUrl) {
      fail(resource, "proxyUrl: Vigil's agent takes its proxy from its own environment (HTTPS_PROXY)");
      continue;
    }
    const input = { name: markers.markedName(name.trim(), project, resource.logicalId), slugName, icon: icon || null };
    if (input.name.length > 255) {
      fail(resource, 'name: with the project marker it is over 255 characters; shorten it or the logicalId');
      continue;
    }
    const current = owned.get(resource.logicalId);
    if (current && current.slugName !== slugName && usedSlugs.has(current.slugName)) {
      fail(
        resource,
        `slugName: checks run in "${current.slugName}", so it cannot be renamed in place; give the location a new logicalId (the old one is deleted once no check names it)`,
      );
      continue;
    }
    const unchanged =
      current !== undefined &&
      current.name === input.name &&
      current.slugName === input.slugName &&
      current.icon === input.icon;
    if (!current) plan.newSlugs.add(slugName);
    slugs.set(resource.logicalId, slugName);
    plan.locations.push({ logicalId: resource.logicalId, input, id: current?.id, unchanged });
  }

  for (const resource of resources.filter((r) => r.type === 'private-location-check-assignment')) {
    const parsed = assignmentPayload.safeParse(resource.payload);
    if (!parsed.success) {
      fail(resource, 'privateLocationId, checkId: must refer to constructs of this project');
      continue;
    }
    const slug = slugs.get(parsed.data.privateLocationId.ref);
    const check = parsed.data.checkId.ref;
    if (!slug) fail(resource, `privateLocationId: "${parsed.data.privateLocationId.ref}" is not a private location`);
    else if (!declared.checks.has(check)) fail(resource, `checkId: "${check}" is not a check of this project`);
    else plan.slugsByCheck.set(check, [...(plan.slugsByCheck.get(check) ?? []), slug]);
  }
  for (const resource of resources.filter((r) => r.type === 'private-location-group-assignment')) {
    const parsed = groupAssignmentPayload.safeParse(resource.payload);
    if (!parsed.success) {
      fail(resource, 'privateLocationId, groupId: must refer to constructs of this project');
      continue;
    }
    const slug = slugs.get(parsed.data.privateLocationId.ref);
    const group = parsed.data.groupId.ref;
    if (!slug) fail(resource, `privateLocationId: "${parsed.data.privateLocationId.ref}" is not a private location`);
    else if (!declared.groups.has(group)) fail(resource, `groupId: "${group}" is not a check group of this project`);
    else plan.slugsByGroup.set(group, [...(plan.slugsByGroup.get(group) ?? []), slug]);
  }

  const kept = new Set(
    resources.filter((r) => r.type === 'private-location' && r.member !== false).map((r) => r.logicalId),
  );
  for (const [logicalId, location] of owned)
    if (!kept.has(logicalId)) plan.deleteLocations.push({ id: location.id, logicalId });
  return plan;
}

/** Creates and updates the project's locations; before the checks, which name them. */
export async function applyLocations(services: ApiServices, access: Access, plan: LocationPlan): Promise<void> {
  for (const location of plan.locations) {
    if (location.unchanged) continue;
    if (location.id) await services.privateLocations.update(access, location.id, location.input);
    else location.id = (await services.privateLocations.create(access, location.input)).id;
  }
}

/**
 * Deletes the locations the project no longer declares; after the checks, which no longer name
 * them. A dry run only looks them up: deleting also clears the location's queue, which is no command.
 */
export async function deleteLocations(services: ApiServices, access: Access, plan: LocationPlan, dry: boolean) {
  for (const location of plan.deleteLocations)
    if (dry) await services.privateLocations.get(access, location.id);
    else await services.privateLocations.delete(access, location.id);
}

export function locationDiff(plan: LocationPlan) {
  return [
    ...plan.locations.map((l) => ({
      type: 'private-location' as const,
      logicalId: l.logicalId,
      physicalId: l.id ?? null,
      action: l.id ? ('UPDATE' as const) : ('CREATE' as const),
    })),
    ...plan.deleteLocations.map((l) => ({
      type: 'private-location' as const,
      logicalId: l.logicalId,
      physicalId: l.id,
      action: 'DELETE' as const,
    })),
  ];
}
