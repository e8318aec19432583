import { z } from 'zod';
import { projectSecret } from '../config.ts';
import type { ApiClient } from '../http.ts';
import { apiError } from '../http.ts';
import { DEPLOY_PATHS, bodies } from './apply.ts';
import { requireSecret, type DeclaredChannel } from './channels.ts';
import type { Kind, RemoteState, Step } from './plan.ts';

type Plain = Record<string, unknown>;
type Ids = Record<Exclude<Kind, 'subscription'>, Map<string, string>>;

/** A change the server said it would refuse. */
export interface Refusal {
  step: Step;
  status: number;
  message: string;
}

/** A change the dry run could not ask about on its own (it names a resource the plan only creates). */
export interface Unchecked {
  step: Step;
  reason: string;
}

export interface PreviewCheck {
  refusals: Refusal[];
  unchecked: Unchecked[];
}

const answered = z.looseObject({ id: z.string() });
const DRY = { dryRun: 'true' } as const;
const PREVIEW_TAG = 'vigil:preview';

/**
 * Asks the server about every step of the plan with `?dryRun=true`: each request runs every
 * validation and decision apply would and writes nothing, so what it refuses, apply would refuse.
 * Unlike apply, it goes on after a refusal, to report them all. The ids of resources the plan only
 * creates exist nowhere on the server: a reference to one is left out of the dry run (a check's
 * group, a window's checks, a subscription), and a step whose answer would depend on earlier
 * steps having been applied (a group whose checks change first) is reported as unchecked.
 */
export async function previewPlan(
  client: ApiClient,
  project: string,
  steps: readonly Step[],
  remote: RemoteState,
): Promise<PreviewCheck> {
  const ids: Ids = {
    'check-group': firstIds(remote.groups),
    check: firstIds(remote.checks),
    'alert-channel': firstIds(remote.channels),
    'maintenance-window': firstIds(remote.windows),
  };
  // Ids the dry runs of creates answered: they name nothing the server holds.
  const planned = new Set<string>();
  const body = bodies(project, ids['check-group'], ids.check);
  const touchesChecks = steps.some((step) => step.kind === 'check' && step.action !== 'create');
  const out: PreviewCheck = { refusals: [], unchecked: [] };

  for (const step of steps) {
    const ask = async (method: string, path: string, payload?: Plain) => {
      const response = await client.raw(method, path, { query: DRY, ...(payload ? { body: payload } : {}) });
      if (response.status >= 400) {
        out.refusals.push({ step, status: response.status, message: apiError(response).message });
        return undefined;
      }
      return response.body;
    };
    if (step.kind === 'subscription') {
      const s = step.subscription!;
      const channelId = ids['alert-channel'].get(s.channel) ?? step.id;
      const target =
        s.check !== undefined ? { checkId: ids.check.get(s.check) } : { groupId: ids['check-group'].get(s.group!) };
      const targetId = Object.values(target)[0];
      // A link to a resource this deploy creates holds nothing else to check: apply makes both ends first.
      if (!channelId || !targetId || planned.has(channelId) || planned.has(targetId)) continue;
      const path = `/v1/alert-channels/${encodeURIComponent(channelId)}/subscriptions`;
      await ask('PUT', path, { ...target, activated: step.action === 'create' });
      continue;
    }
    const base = DEPLOY_PATHS[step.kind];
    if (step.action === 'delete') {
      // A group must be empty to go: the checks this deploy deletes or moves out are still in it now.
      if (step.kind === 'check-group' && touchesChecks) {
        out.unchecked.push({ step, reason: 'its checks change earlier in this deploy' });
        continue;
      }
      await ask('DELETE', `${base}/${encodeURIComponent(step.id!)}`);
      continue;
    }
    if (step.kind === 'alert-channel' && step.action === 'create') {
      try {
        requireSecret(step.declared as DeclaredChannel, projectSecret);
      } catch {
        // Its secret's variable is not set: the preview already warns that deploy will need it.
        continue;
      }
    }
    let payload: Plain;
    try {
      payload = body[step.kind](step.declared as never);
    } catch (error) {
      out.unchecked.push({ step, reason: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const withoutPlanned = leavePlannedOut(payload, planned);
    if (step.action === 'update') {
      await ask('PUT', `${base}/${encodeURIComponent(step.id!)}`, withoutPlanned);
      continue;
    }
    const would = answered.safeParse(await ask('POST', base, withoutPlanned));
    if (would.success) {
      ids[step.kind].set(step.logicalId, would.data.id);
      planned.add(would.data.id);
    }
  }
  return out;
}

/** logicalId → id, the first holder winning, as apply and the plan do. */
function firstIds(items: ReadonlyArray<{ logicalId: string; id: string }>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const item of items) if (!ids.has(item.logicalId)) ids.set(item.logicalId, item.id);
  return ids;
}

/** The payload without ids of resources the plan only creates. */
function leavePlannedOut(payload: Plain, planned: ReadonlySet<string>): Plain {
  if (typeof payload.groupId === 'string' && planned.has(payload.groupId)) return { ...payload, groupId: null };
  if (Array.isArray(payload.checkIds) && payload.checkIds.some((id) => planned.has(id as string))) {
    const checkIds = (payload.checkIds as string[]).filter((id) => !planned.has(id));
    const tags = Array.isArray(payload.tags) ? payload.tags : [];
    // A window must cover something: a stand-in tag keeps that rule met, every other field is still checked.
    return { ...payload, checkIds, tags: checkIds.length === 0 && tags.length === 0 ? [PREVIEW_TAG] : tags };
  }
  return payload;
}

/** One line per refusal, as the preview prints them. */
export function refusalLines(check: PreviewCheck): string[] {
  return check.refusals.map(
    ({ step, status, message }) => `✗ ${step.action} ${step.kind} ${step.logicalId}: ${message} (HTTP ${status})`,
  );
}
