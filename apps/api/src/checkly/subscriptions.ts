import { ValidationError } from '#core';
import type { AlertChannelView } from '#readmodels';
import type { Access } from '../access.ts';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import { findByNumericId, numericId } from './ids.ts';

export interface Subscription {
  alertChannelId: number;
  activated: boolean;
}

/** What a subscription follows: a check, or a group (and so every check in it). */
export type SubscriptionTarget = { checkId: string; groupId?: undefined } | { groupId: string; checkId?: undefined };

const follows = (subscription: { checkId: string | null; groupId: string | null }, target: SubscriptionTarget) =>
  target.checkId !== undefined ? subscription.checkId === target.checkId : subscription.groupId === target.groupId;

/**
 * The alertChannelSubscriptions of checks (or groups) as Checkly shows them, read from the
 * channels' own subscriptions (Vigil keeps them on the channel): the active ones naming each directly.
 */
export function subscriptionsBy(channels: AlertChannelView[], key: 'checkId' | 'groupId'): Map<string, Subscription[]> {
  const byTarget = new Map<string, Subscription[]>();
  for (const view of channels)
    for (const subscription of view.subscriptions) {
      const target = subscription[key];
      if (target !== null && subscription.activated) {
        const list = byTarget.get(target) ?? [];
        list.push({ alertChannelId: numericId(view.channel.id), activated: true });
        byTarget.set(target, list);
      }
    }
  return byTarget;
}

export const subscriptionsByCheck = (channels: AlertChannelView[]) => subscriptionsBy(channels, 'checkId');

/** The numeric channel ids of a body as the account's channel views; a 400 names the first unknown. */
export async function resolveSubscriptions(
  services: ApiServices,
  access: Access,
  wanted: Array<{ alertChannelId: number }> | null | undefined,
): Promise<{ all: AlertChannelView[]; chosen: AlertChannelView[] }> {
  const all = await services.readModels.alertChannels(access.accountId);
  const chosen = (wanted ?? []).map(({ alertChannelId }, index) => {
    const found = findByNumericId(all, (view) => view.channel.id, alertChannelId);
    if (!found)
      throw new ValidationError(
        `alertChannelSubscriptions[${index}].alertChannelId: no alert channel ${alertChannelId} in this account`,
      );
    return found;
  });
  return { all, chosen };
}

/**
 * Makes the check's (or group's) direct subscriptions exactly the chosen channels: each is set
 * active, and a channel that followed it but is no longer listed is set inactive (Vigil's channels
 * keep a subscription and cannot drop it).
 */
export async function applySubscriptions(
  channels: ChannelService,
  access: Access,
  target: string | SubscriptionTarget,
  resolved: { all: AlertChannelView[]; chosen: AlertChannelView[] },
): Promise<Subscription[]> {
  const on: SubscriptionTarget = typeof target === 'string' ? { checkId: target } : target;
  const chosen = new Set(resolved.chosen.map((view) => view.channel.id));
  const active = (view: AlertChannelView) => view.subscriptions.some((s) => follows(s, on) && s.activated);
  for (const view of resolved.all) {
    const want = chosen.has(view.channel.id);
    if (want !== active(view)) await channels.subscribe(access, view.channel.id, { ...on, activated: want });
  }
  return resolved.chosen.map((view) => ({ alertChannelId: numericId(view.channel.id), activated: true }));
}
