import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { zodRoutes } from '#http';
import type { Access } from '../access.ts';
import { runDry } from '../request-context.ts';
import { StatusPageService } from '../console/status-page-service.ts';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import type { MaintenanceWindowService } from '../services/maintenance-windows.ts';
import { applyWindows } from './project-windows.ts';
import { applyChannels, deleteChannels } from './project-channels.ts';
import { codeBundleRoutes } from './project-bundle.ts';
import { applyLocations, deleteLocations } from './project-locations.ts';
import { applyPages } from './project-status-pages.ts';
import {
  deployBody,
  diffOf,
  planProject,
  projectLogicalId,
  type DeployBody,
  type ProjectPlan,
} from './project-plan.ts';

const write = { access: { minRole: 'READ_WRITE' as const } };
const read = { access: { minRole: 'READ_ONLY' as const } };
const flag = z.enum(['true', 'false']).optional();
const deployQuery = z.object({ dryRun: flag, scheduleOnDeploy: flag, preserveResources: flag });
const projectParams = z.object({ logicalId: projectLogicalId });
const deploymentParams = projectParams.extend({ id: z.uuid() });
/** A deploy that dies mid-way frees its project after this long. */
const LOCK_TTL_MS = 10 * 60_000;
/** How long the CLI can follow a finished deployment. */
const DEPLOYMENT_TTL_MS = 60 * 60_000;

interface Deployment {
  id: string;
  projectLogicalId: string;
  status: 'SUCCEEDED';
  result: { diff: ReturnType<typeof diffOf> } | null;
  error: null;
}

/**
 * `checkly deploy`, `deploy --preview` and `destroy`. A deployment is decided whole with dry runs,
 * then applied within the request; the CLI then follows its (already finished) event stream. The
 * finished deployment is kept for an hour in the state store, and a per-project lock there answers
 * a concurrent deploy or destroy of the same project with a 409.
 */
export function projectRoutes(
  app: FastifyInstance,
  services: ApiServices,
  channels: ChannelService,
  windows: MaintenanceWindowService,
): void {
  const routes = zodRoutes(app);
  const store = services.stateStore;
  const pages = new StatusPageService(services.commands, services.readModels, services.stateStore);
  codeBundleRoutes(app, store);
  const lockKey = (access: Access, project: string) => `checkly:project-lock:${access.accountId}:${project}`;
  const deploymentKey = (access: Access, id: string) => `checkly:deployment:${access.accountId}:${id}`;

  const refuseUnsupported = (query: z.output<typeof deployQuery>) => {
    if (query.scheduleOnDeploy === 'false')
      throw new ValidationError(
        'scheduleOnDeploy: Vigil schedules every activated check; set activated: false instead',
      );
    if (query.preserveResources === 'true')
      throw new ValidationError('preserveResources: not supported by Vigil; removed constructs are deleted');
  };

  /** Every write the plan makes, run as a dry run first: one refusal and nothing is written. */
  const apply = async (access: Access, plan: ProjectPlan, dry: boolean) => {
    const newChecks = new Set(plan.checks.filter((check) => !check.id).map((check) => check.logicalId));
    const newGroups = new Set(plan.groups.filter((group) => !group.id).map((group) => group.logicalId));
    // Locations first: the checks name them. A dry run cannot name the ones it would create.
    await applyLocations(services, access, plan.locations);
    const unmade = dry ? plan.locations.newSlugs : new Set<string>();
    const made = <T extends { locations?: string[] }>(input: T): T => {
      const locations = input.locations?.filter((slug) => !unmade.has(slug));
      return locations ? { ...input, locations } : input;
    };
    const groupIds = new Map<string, string>();
    for (const group of plan.groups) {
      if (group.unchanged && group.id) groupIds.set(group.logicalId, group.id);
      else if (group.id)
        groupIds.set(group.logicalId, (await services.checks.updateGroup(access, group.id, made(group.input))).id);
      else {
        group.id = (await services.checks.createGroup(access, made(group.input))).id;
        groupIds.set(group.logicalId, group.id);
      }
    }
    for (const check of plan.checks) {
      if (check.unchanged) continue;
      // A group created in a dry run does not exist, so there the check is decided without it.
      const ref = check.groupRef;
      const groupId = ref && !(dry && newGroups.has(ref)) ? (groupIds.get(ref) ?? null) : null;
      const input = { ...made(check.input), groupId };
      if (check.id) await services.checks.updateCheck(access, check.id, input);
      else check.id = (await services.checks.createCheck(access, input)).id;
    }
    // What this deploy creates exists only outside a dry run.
    const existing = (items: Array<{ logicalId: string; id?: string }>, created: Set<string>) =>
      new Map(
        items.flatMap((item) => (item.id && !(dry && created.has(item.logicalId)) ? [[item.logicalId, item.id]] : [])),
      );
    const checkIds = existing(plan.checks, newChecks);
    await applyPages(pages, access, plan.pages, checkIds, dry);
    await applyChannels(
      services,
      channels,
      access,
      plan.channels,
      { checks: checkIds, groups: existing(plan.groups, newGroups) },
      dry,
    );
    await deleteChannels(channels, access, plan.channels, dry);
    await applyWindows(windows, access, plan.windows, dry);
    for (const check of plan.deleteChecks) await services.checks.deleteCheck(access, check.id);
    if (dry) {
      // A dry run deletes no check, so a group's delete is decided by what would be left in it.
      const leaving = new Set(plan.deleteChecks.map((check) => check.id));
      const checks = await services.readModels.checks(access.accountId);
      for (const group of plan.deleteGroups) {
        const left = checks.filter((view) => view.check.groupId === group.id && !leaving.has(view.check.id));
        if (left.length > 0)
          throw new ValidationError(
            `check-group "${group.logicalId}": still holds ${left.length} check(s) the project does not own; move them out first`,
          );
        await services.checks.getGroup(access, group.id);
      }
    } else for (const group of plan.deleteGroups) await services.checks.deleteGroup(access, group.id);
    await deleteLocations(services, access, plan.locations, dry);
  };

  /** Plans, decides it all dry, then (unless dry) applies under the project's lock. */
  const run = async (access: Access, body: DeployBody, dryRun: boolean) => {
    const project = body.project.logicalId;
    const id = randomUUID();
    if (!dryRun && !(await store.setIfAbsent(lockKey(access, project), id, { ttlMs: LOCK_TTL_MS })))
      throw new ConflictError(`A deployment of project "${project}" is in progress`);
    try {
      const plan = await planProject(services, { channels, windows, pages }, access, body);
      const diff = diffOf(plan);
      await runDry(() => apply(access, structuredClone(plan), true));
      if (dryRun) return { diff };
      await apply(access, plan, false);
      const deployment: Deployment = {
        id,
        projectLogicalId: project,
        status: 'SUCCEEDED',
        result: { diff: diffOf(plan) },
        error: null,
      };
      await store.set(deploymentKey(access, id), JSON.stringify(deployment), { ttlMs: DEPLOYMENT_TTL_MS });
      return deployment;
    } finally {
      // Only our own lock: one that outlived its TTL may belong to the next deploy by now.
      if (!dryRun && (await store.get(lockKey(access, project))) === id) await store.del(lockKey(access, project));
    }
  };

  const deployment = async (access: Access, project: string, id: string): Promise<Deployment> => {
    const raw = await store.get(deploymentKey(access, id));
    const found = raw ? (JSON.parse(raw) as Deployment) : null;
    if (!found || found.projectLogicalId !== project) throw new NotFoundError(`Deployment ${id} not found`);
    return found;
  };

  routes.post('/v1/projects/deploy', {
    config: write,
    schema: { querystring: deployQuery, body: deployBody },
    handler: async (request, reply) => {
      refuseUnsupported(request.query);
      const dryRun = request.query.dryRun === 'true';
      const answer = await run(request.access!, request.body, dryRun);
      return reply.code(dryRun ? 200 : 202).send(answer);
    },
  });
  routes.delete('/v1/projects/:logicalId', {
    config: write,
    schema: { params: projectParams, querystring: deployQuery.omit({ scheduleOnDeploy: true }) },
    handler: async (request, reply) => {
      refuseUnsupported(request.query);
      const empty: DeployBody = { project: { logicalId: request.params.logicalId, name: '' }, resources: [] };
      const dryRun = request.query.dryRun === 'true';
      const answer = await run(request.access!, empty, dryRun);
      // Nothing owned: a plain answer without a deployment to follow, as for a missing project.
      if (!dryRun && 'result' in answer && answer.result?.diff.length === 0) return reply.send({ diff: [] });
      return reply.code(dryRun ? 200 : 202).send(answer);
    },
  });
  routes.get('/v1/projects/:logicalId/deployments/:id', {
    config: read,
    schema: { params: deploymentParams },
    handler: async (request) => deployment(request.access!, request.params.logicalId, request.params.id),
  });
  routes.get('/v1/projects/:logicalId/deployments/:id/completion', {
    config: read,
    schema: { params: deploymentParams, querystring: z.object({ maxWaitSeconds: z.coerce.number().int().optional() }) },
    handler: async (request) => deployment(request.access!, request.params.logicalId, request.params.id),
  });
  // Deployments finish within their request, so the stream is the final frame at once.
  routes.get('/v1/projects/:logicalId/deployments/:id/events', {
    config: read,
    schema: { params: deploymentParams },
    handler: async (request, reply) => {
      const found = await deployment(request.access!, request.params.logicalId, request.params.id);
      return reply
        .header('content-type', 'text/event-stream')
        .header('cache-control', 'no-store')
        .send(`event: progress\ndata: {"progress":100}\n\nevent: complete\ndata: ${JSON.stringify(found)}\n\n`);
    },
  });
}
