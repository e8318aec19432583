import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '#core';
import { secretFieldOf, type AlertChannelInput } from '#domain';
import { strictInput } from '#http';
import { markers } from '#project-markers';
import type { AlertChannelView } from '#readmodels';
import type { Access } from '../access.ts';
import { runDry } from '../request-context.ts';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import { channelBody, toVigilChannel } from './channel-write.ts';
import { numericId } from './ids.ts';

/**
 * A project's alert channels and their subscriptions. Vigil's channels carry no tags, so, as with
 * `vigil deploy`, the marker ends the channel's name: `ops@example.com [vigil:website/ops-email]`.
 */

export interface DeclaredChannel {
  logicalId: string;
  input: AlertChannelInput;
  id?: string;
  unchanged: boolean;
}
export interface DeclaredSubscription {
  logicalId: string;
  channelRef: string;
  checkRef?: string;
  groupRef?: string;
}
export interface ChannelPlan {
  channels: DeclaredChannel[];
  subscriptions: DeclaredSubscription[];
  deleteChannels: Array<{ id: string; logicalId: string }>;
}

const ref = z.object({ ref: z.string().max(256) });
/** Read as strictly as the dialect's own routes: an unknown field is named, not dropped. */
const strictChannelBody = strictInput(channelBody);
const subscriptionPayload = z.strictObject({
  alertChannelId: ref,
  checkId: ref.nullish(),
  groupId: ref.nullish(),
  activated: z.boolean().nullish(),
});

type Resource = { logicalId: string; type: string; payload: Record<string, unknown> };

/** The project's channels matched by their name marker; a channel is unchanged when a dry update answers it as it is. */
export async function planChannels(
  services: ApiServices,
  channels: ChannelService,
  access: Access,
  project: string,
  resources: Resource[],
  declared: { checks: Set<string>; groups: Set<string> },
  refused: string[],
): Promise<ChannelPlan> {
  const views = await services.readModels.alertChannels(access.accountId);
  const owned = new Map<string, AlertChannelView>();
  for (const view of views) {
    const marker = markers.parseChannelName(String((view.channel.config as { name?: unknown }).name ?? ''));
    if (marker?.project === project) owned.set(marker.logicalId, view);
  }
  const plan: ChannelPlan = { channels: [], subscriptions: [], deleteChannels: [] };
  const channelIds = new Set(resources.filter((r) => r.type === 'alert-channel').map((r) => r.logicalId));
  for (const resource of resources) {
    try {
      await planOne(resource);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      refused.push(`${resource.type} "${resource.logicalId}": ${error.message}`);
    }
  }
  async function planOne(resource: Resource) {
    if (resource.type === 'alert-channel') {
      const parsed = strictChannelBody.safeParse(resource.payload);
      if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
      const input = toVigilChannel(parsed.data);
      const config = input.config as Record<string, unknown>;
      input.config = {
        ...config,
        name: markers.channelName(String(config.name ?? ''), project, resource.logicalId),
      } as never;
      const current = owned.get(resource.logicalId);
      // A sealed secret cannot be compared, so a channel that has one is written on every deploy.
      const field = secretFieldOf[input.type ?? 'WEBHOOK'];
      const hasSecret = field !== null && Boolean((input.config as Record<string, unknown>)[field]);
      let unchanged = false;
      if (current && !hasSecret) {
        const wouldBe = await runDry(() => channels.update(access, current.channel.id, input));
        const { updatedAt: _a, ...now } = channels.present(current) as Record<string, unknown>;
        const { updatedAt: _b, ...next } = wouldBe as Record<string, unknown>;
        unchanged = isDeepStrictEqual(now, next);
      }
      plan.channels.push({ logicalId: resource.logicalId, input, id: current?.channel.id, unchanged });
    } else {
      const parsed = subscriptionPayload.safeParse(resource.payload);
      if (!parsed.success)
        throw new ValidationError('alertChannelId, checkId, groupId: must refer to constructs of this project');
      const { alertChannelId, checkId, groupId, activated } = parsed.data;
      if (activated === false) throw new ValidationError('activated: false is not kept; leave the channel out instead');
      if (!channelIds.has(alertChannelId.ref))
        throw new ValidationError(`alertChannelId: "${alertChannelId.ref}" is not an alert channel of this project`);
      if (checkId && !declared.checks.has(checkId.ref))
        throw new ValidationError(`checkId: "${checkId.ref}" is not a check of this project`);
      if (groupId && !declared.groups.has(groupId.ref))
        throw new ValidationError(`groupId: "${groupId.ref}" is not a check group of this project`);
      if (!checkId === !groupId) throw new ValidationError('checkId, groupId: give exactly one of them');
      plan.subscriptions.push({
        logicalId: resource.logicalId,
        channelRef: alertChannelId.ref,
        checkRef: checkId?.ref,
        groupRef: groupId?.ref,
      });
    }
  }
  for (const [logicalId, view] of owned)
    if (!channelIds.has(logicalId)) plan.deleteChannels.push({ id: view.channel.id, logicalId });
  return plan;
}

/**
 * Writes the channels, then makes each project channel's subscriptions exactly the declared ones
 * (Vigil keeps a subscription on the channel and sets it inactive rather than dropping it).
 */
export async function applyChannels(
  services: ApiServices,
  channels: ChannelService,
  access: Access,
  plan: ChannelPlan,
  ids: { checks: Map<string, string>; groups: Map<string, string> },
  dry: boolean,
): Promise<void> {
  const channelIds = new Map<string, string>();
  for (const channel of plan.channels) {
    if (channel.id && channel.unchanged) channelIds.set(channel.logicalId, channel.id);
    else if (channel.id)
      channelIds.set(channel.logicalId, (await channels.update(access, channel.id, channel.input)).id);
    else channelIds.set(channel.logicalId, (await channels.create(access, channel.input)).id);
  }
  const views = new Map((await services.readModels.alertChannels(access.accountId)).map((v) => [v.channel.id, v]));
  for (const channel of plan.channels) {
    const channelId = channelIds.get(channel.logicalId)!;
    // In a dry run a channel, check or group made by this deploy does not exist: nothing to decide there.
    if (dry && !channel.id) continue;
    const wanted = plan.subscriptions
      .filter((s) => s.channelRef === channel.logicalId)
      .map((s) => ({
        checkId: s.checkRef ? ids.checks.get(s.checkRef) : undefined,
        groupId: s.groupRef ? ids.groups.get(s.groupRef) : undefined,
      }));
    const current = views.get(channelId)?.subscriptions ?? [];
    for (const target of wanted) {
      if (!target.checkId && !target.groupId) continue;
      const active = current.some(
        (s) => s.activated && (target.checkId ? s.checkId === target.checkId : s.groupId === target.groupId),
      );
      if (!active) await channels.subscribe(access, channelId, { ...target, activated: true });
    }
    for (const s of current) {
      const kept = wanted.some((t) => (s.checkId ? t.checkId === s.checkId : t.groupId === s.groupId));
      if (s.activated && !kept)
        await channels
          .subscribe(access, channelId, { checkId: s.checkId, groupId: s.groupId, activated: false })
          .catch((error: unknown) => {
            // A subscription of a check or group deleted since then: nothing left to stop.
            if (!(error instanceof NotFoundError)) throw error;
          });
    }
  }
}

export async function deleteChannels(channels: ChannelService, access: Access, plan: ChannelPlan, dry: boolean) {
  for (const channel of plan.deleteChannels)
    if (dry) await channels.get(access, channel.id);
    else await channels.delete(access, channel.id);
}

export function channelDiff(plan: ChannelPlan) {
  return [
    ...plan.channels.map((c) => ({
      type: 'alert-channel' as const,
      logicalId: c.logicalId,
      physicalId: c.id ? numericId(c.id) : null,
      action: c.id ? ('UPDATE' as const) : ('CREATE' as const),
    })),
    ...plan.deleteChannels.map((c) => ({
      type: 'alert-channel' as const,
      logicalId: c.logicalId,
      physicalId: numericId(c.id),
      action: 'DELETE' as const,
    })),
  ];
}
