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

/**
 * A check's alertChannelSubscriptions as Checkly shows them, read from the channels' own
 * subscriptions (Vigil keeps them on the channel): the active ones naming the check directly.
 */
export function subscriptionsByCheck(channels: AlertChannelView[]): Map<string, Subscription[]> {
  const byCheck = new Map<string, Subscription[]>();
  for (const view of channels)
    for (const subscription of view.subscriptions)
      if (subscription.checkId !== null && subscription.activated) {
        const list = byCheck.get(subscription.checkId) ?? [];
        list.push({ alertChannelId: numericId(view.channel.id), activated: true });
        byCheck.set(subscription.checkId, list);
      }
  return byCheck;
}

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
 * Makes the check's direct subscriptions exactly the chosen channels: each is set active, and a
 * channel that followed the check but is no longer listed is set inactive (Vigil's channels keep
 * a subscription and cannot drop it).
 */
export async function applySubscriptions(
  channels: ChannelService,
  access: Access,
  checkId: string,
  resolved: { all: AlertChannelView[]; chosen: AlertChannelView[] },
): Promise<Subscription[]> {
  const chosen = new Set(resolved.chosen.map((view) => view.channel.id));
  const active = (view: AlertChannelView) => view.subscriptions.some((s) => s.checkId === checkId && s.activated);
  for (const view of resolved.all) {
    const want = chosen.has(view.channel.id);
    if (want !== active(view)) await channels.subscribe(access, view.channel.id, { checkId, activated: want });
  }
  return resolved.chosen.map((view) => ({ alertChannelId: numericId(view.channel.id), activated: true }));
}
