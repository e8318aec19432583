import { z } from 'zod';
import { projectSecret } from '../config.ts';
import { CliError } from '../errors.ts';
import type { ApiClient } from '../http.ts';
import { channelBody, requireSecret, type DeclaredChannel } from './channels.ts';
import type { Kind, RemoteState, Step } from './plan.ts';
import { markers, type DeclaredCheck, type DeclaredGroup } from './schema.ts';
import { windowBody, type DeclaredWindow } from './windows.ts';

type Plain = Record<string, unknown>;
const created = z.looseObject({ id: z.string() });

const PATHS: Record<Exclude<Kind, 'subscription'>, string> = {
  'check-group': '/v1/check-groups',
  check: '/v1/checks',
  'alert-channel': '/v1/alert-channels',
  'maintenance-window': '/v1/maintenance-windows',
};
/** Where each kind of resource is written: apply writes there, preview asks there with ?dryRun=true. */
export const DEPLOY_PATHS: Readonly<typeof PATHS> = PATHS;

export interface Applied {
  step: Step;
  id: string;
}

/** The request bodies: the file's fields plus the markers that tie each resource to its logical id. */
export function bodies(project: string, groupIds: Map<string, string>, checkIds: Map<string, string>) {
  const tags = (declared: { tags?: string[] | undefined }, logicalId: string) => [
    ...(declared.tags ?? []),
    markers.projectTag(project),
    markers.logicalTag(logicalId),
  ];
  return {
    'check-group'(declared: DeclaredGroup): Plain {
      const { logicalId, ...fields } = declared;
      return { ...fields, tags: tags(declared, logicalId) };
    },
    check(declared: DeclaredCheck): Plain {
      const { logicalId, group, ...fields } = declared;
      const groupId = group === undefined ? null : groupIds.get(group);
      if (groupId === undefined) throw new CliError(`check ${logicalId}: group ${group} has no id yet`);
      return { ...fields, groupId, tags: tags(declared, logicalId) };
    },
    'alert-channel'(declared: DeclaredChannel): Plain {
      return channelBody(declared, project, projectSecret);
    },
    'maintenance-window'(declared: DeclaredWindow): Plain {
      return windowBody(declared, project, checkIds);
    },
  };
}

/**
 * Applies the steps in order, reporting each as it lands. On the first failure it stops and says
 * what was applied and what was not; running deploy again picks up from there, since the plan is
 * recomputed from the server.
 */
export async function applyPlan(
  client: ApiClient,
  project: string,
  steps: readonly Step[],
  remote: RemoteState,
  report: (applied: Applied) => void,
): Promise<Applied[]> {
  const ids = {
    'check-group': firstIds(remote.groups),
    check: firstIds(remote.checks),
    'alert-channel': firstIds(remote.channels),
    'maintenance-window': firstIds(remote.windows),
  };
  const body = bodies(project, ids['check-group'], ids.check);
  const done: Applied[] = [];
  for (const step of steps) {
    let id: string;
    try {
      id = await applyStep(client, step, ids, body);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const left = steps.length - done.length;
      throw new CliError(
        `${step.action} ${step.kind} ${step.logicalId} failed: ${message}\n` +
          `Applied ${done.length} of ${steps.length} changes; ${left} not applied. Fix the file and run vigil deploy again.`,
      );
    }
    const applied = { step, id };
    done.push(applied);
    report(applied);
  }
  return done;
}

/** logicalId → id, the first holder winning, as in the plan (a later duplicate is deleted). */
function firstIds(items: ReadonlyArray<{ logicalId: string; id: string }>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const item of items) if (!ids.has(item.logicalId)) ids.set(item.logicalId, item.id);
  return ids;
}

async function applyStep(
  client: ApiClient,
  step: Step,
  ids: Record<Exclude<Kind, 'subscription'>, Map<string, string>>,
  body: ReturnType<typeof bodies>,
): Promise<string> {
  if (step.kind === 'subscription') {
    const s = step.subscription!;
    const channelId = ids['alert-channel'].get(s.channel) ?? step.id;
    const target =
      s.check !== undefined ? { checkId: ids.check.get(s.check) } : { groupId: ids['check-group'].get(s.group!) };
    if (!channelId || !Object.values(target)[0]) throw new CliError('a resource it links has no id yet');
    await client.send('PUT', `/v1/alert-channels/${encodeURIComponent(channelId)}/subscriptions`, {
      body: { ...target, activated: step.action === 'create' },
    });
    return channelId;
  }
  const base = PATHS[step.kind];
  if (step.action === 'delete') {
    await client.send('DELETE', `${base}/${encodeURIComponent(step.id!)}`);
    return step.id!;
  }
  // A channel is created with its secret or not at all (deploy checks the variables first, too).
  if (step.kind === 'alert-channel' && step.action === 'create')
    requireSecret(step.declared as DeclaredChannel, projectSecret);
  const payload = body[step.kind](step.declared as never);
  if (step.action === 'update') {
    await client.send('PUT', `${base}/${encodeURIComponent(step.id!)}`, { body: payload });
    return step.id!;
  }
  const answer = await client.json(created, 'POST', base, { body: payload });
  ids[step.kind].set(step.logicalId, answer.id);
  return answer.id;
}
