import { z } from 'zod';
import { ValidationError } from '#core';
import { markers } from '#project-markers';
import type { CheckGroupInput, CheckInput } from '#domain';
import type { Access } from '../access.ts';
import type { StatusPageService } from '../console/status-page-service.ts';
import type { ChannelService } from '../services/channels.ts';
import type { MaintenanceWindowService } from '../services/maintenance-windows.ts';
import type { ApiServices } from '../services/index.ts';
import { assertPlaywrightVersion, suiteFiles } from './project-bundle.ts';
import { planCheck, planGroup, type Declared } from './project-checks.ts';
import { channelDiff, planChannels, type ChannelPlan } from './project-channels.ts';
import { locationDiff, locationTypes, planLocations, type LocationPlan } from './project-locations.ts';
import { pageDiff, pageTypes, planPages, type PagePlan } from './project-status-pages.ts';
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
  project: z.object({
    logicalId: projectLogicalId,
    name: z.string().max(2048),
    repoUrl: z.string().max(2048).nullish(),
  }),
  resources: z
    .array(
      z.object({
        logicalId: z.string().min(1).max(256),
        type: z.string().max(64),
        member: z.boolean().nullish(),
        // Set on a construct that names an existing resource (`PrivateLocation.fromId()`), whose payload is null.
        physicalId: z.union([z.string().max(64), z.number()]).nullish(),
        payload: z.record(z.string(), z.unknown()).nullable(),
        sourceFile: z.string().max(4096).nullish(),
      }),
    )
    .max(2000),
  // The CLI's bundle of shared files and git metadata: nothing in them changes a resource.
  sharedFiles: z.array(z.unknown()).nullish(),
  repoInfo: z.unknown().nullish(),
});
export type DeployBody = z.output<typeof deployBody>;

export type DiffAction = 'CREATE' | 'UPDATE' | 'DELETE';
export interface DiffEntry {
  type: 'check' | 'check-group' | 'alert-channel' | 'maintenance-window' | 'private-location' | 'status-page';
  logicalId: string;
  physicalId: string | number | null;
  action: DiffAction;
}

export interface ProjectPlan {
  groups: Declared<CheckGroupInput>[];
  checks: Declared<CheckInput>[];
  deleteChecks: Array<{ id: string; logicalId: string }>;
  deleteGroups: Array<{ id: string; logicalId: string }>;
  channels: ChannelPlan;
  windows: WindowPlan;
  locations: LocationPlan;
  pages: PagePlan;
}

/** Constructs Vigil has no counterpart for in a project, and what to use instead. */
const refusedTypes: Record<string, string> = {
  'status-page-component': "Vigil maps Checkly's StatusPage (cards and services), not StatusPageV3 components",
  'status-page-automation-rule': "Vigil's status pages show their checks' state; they have no incident automation",
  dashboard: 'Vigil does not support dashboards',
};
/**
 * Translates every construct through the dialect's own translators and matches it to what the
 * project already owns by (project, logicalId). Every construct Vigil cannot honour is named in one
 * 400, so nothing is applied in part.
 */
export async function planProject(
  services: ApiServices,
  deps: { channels: ChannelService; windows: MaintenanceWindowService; pages: StatusPageService },
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
  const owned = <T extends { tags?: string[] }>(items: T[]) =>
    new Map(
      items.flatMap((item) => {
        const logicalId = markers.logicalOf(project, item.tags ?? []);
        return logicalId ? [[logicalId, item] as const] : [];
      }),
    );
  const ownedChecks = owned(existingChecks.map((view) => view.check));
  const ownedGroups = owned(existingGroups.map((view) => view.group));
  const ofType = (...types: string[]) => body.resources.filter((r) => types.includes(r.type));
  const declared = (type: string) => new Set(ofType(type).map((r) => r.logicalId));
  const keptChecks = declared('check');
  const keptGroups = declared('check-group');
  const channelTypes = new Set(['alert-channel', 'alert-channel-subscription']);
  const handled = (type: string) =>
    channelTypes.has(type) || type === 'maintenance-window' || locationTypes.has(type) || pageTypes.has(type);
  const usedSlugs = new Set([
    ...existingChecks.flatMap((view) => view.check.locations),
    ...existingGroups.flatMap((view) => view.group.locations ?? []),
  ]);
  const locations = await planLocations(
    services,
    access,
    project,
    ofType(...locationTypes),
    { checks: keptChecks, groups: keptGroups },
    usedSlugs,
    refused,
  );
  const plan: ProjectPlan = {
    groups: [],
    checks: [],
    deleteChecks: [],
    deleteGroups: [],
    channels: { channels: [], subscriptions: [], deleteChannels: [] },
    windows: { windows: [], deleteWindows: [] },
    locations,
    pages: { pages: [], deletePages: [], services: [] },
  };
  const serviceOf = new Map<string, string>();
  const pageServices = declared('status-page-service');

  for (const resource of body.resources) {
    const name = label(resource.type, resource.logicalId);
    try {
      if (resource.member === false && resource.type !== 'private-location')
        throw new ValidationError(
          `Vigil's checkly deploy cannot reference an existing ${resource.type} (fromId); declare it in the project`,
        );
      const payload = resource.payload ?? {};
      if (resource.type === 'check-group') {
        const slugs = locations.slugsByGroup.get(resource.logicalId) ?? [];
        const current = ownedGroups.get(resource.logicalId);
        plan.groups.push(planGroup(project, resource.logicalId, payload, current, name, slugs));
      } else if (resource.type === 'check') {
        const suite = payload.checkType === 'PLAYWRIGHT' && 'codeBundlePath' in payload;
        const { check, files, playwrightVersion } = suite
          ? await suiteFiles(services.stateStore, access, payload)
          : { check: payload, files: undefined, playwrightVersion: undefined };
        const planned = planCheck(resource.logicalId, check, {
          project,
          label: name,
          current: ownedChecks.get(resource.logicalId),
          groups: keptGroups,
          ownedGroups,
          slugs: locations.slugsByCheck.get(resource.logicalId) ?? [],
          files,
          services: pageServices,
        });
        if (suite) {
          const group = plan.groups.find((g) => g.logicalId === planned.groupRef)?.input;
          const runtime = services.runtimes.effective(
            planned.input.runtimeId,
            group?.runtimeId,
            access.account.runtimeId,
          );
          assertPlaywrightVersion(runtime, playwrightVersion);
        }
        if (planned.serviceRef) serviceOf.set(resource.logicalId, planned.serviceRef);
        plan.checks.push(planned);
      } else if (!handled(resource.type)) {
        throw new ValidationError(
          refusedTypes[resource.type] ?? `Vigil's checkly deploy does not support ${resource.type} constructs`,
        );
      }
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      refused.push(`${name}: ${error.message}`);
    }
  }
  const resources = (types: Set<string>) =>
    body.resources
      .filter((r) => types.has(r.type) && r.member !== false)
      .map((r) => ({ ...r, payload: r.payload ?? {} }));
  plan.channels = await planChannels(
    services,
    deps.channels,
    access,
    project,
    resources(channelTypes),
    { checks: keptChecks, groups: keptGroups },
    refused,
  );
  plan.windows = await planWindows(deps.windows, access, project, resources(new Set(['maintenance-window'])), refused);
  plan.pages = await planPages(deps.pages, access, project, resources(pageTypes), serviceOf, refused);
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
    ...locationDiff(plan.locations),
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
    ...pageDiff(plan.pages),
  ];
}
