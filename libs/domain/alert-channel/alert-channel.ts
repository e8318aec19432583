import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { parseInput } from '../validation.ts';
import {
  alertChannelEventData,
  alertChannelInputSchema,
  subscriptionSchema,
  type AlertChannel,
  type AlertChannelInput,
  type Subscription,
  secretFieldOf,
  SECRET_MASK,
} from './alert-channel-schema.ts';

export const alertChannelEvents = defineEvents(alertChannelEventData);
export type AlertChannelEvent = EventsOf<typeof alertChannelEvents.data>;
export const alertChannelEventSchema = alertChannelEvents.schema;
export const parseAlertChannelEvent = alertChannelEvents.parse;

export type AlertChannelState =
  | { status: 'absent' }
  | { status: 'active'; channel: AlertChannel; subscriptions: Subscription[]; createdAt: string; updatedAt: string }
  | { status: 'deleted'; accountId: string; channelId: string; deletedAt: string };

export interface CreateAlertChannel extends CommandBase {
  type: 'CreateAlertChannel';
  channelId: string;
  accountId: string;
  channel: AlertChannelInput;
  /** The input's secret (webhookSecret, serviceKey, apiKey, botToken) sealed by the application; null when there is none. */
  secretEncrypted?: string | null;
  /** The older name of secretEncrypted, for webhooks. */
  webhookSecretEncrypted?: string | null;
}

/** A full replacement (PUT), except the secret: undefined keeps the stored one. */
export interface UpdateAlertChannel extends CommandBase {
  type: 'UpdateAlertChannel';
  channelId: string;
  accountId: string;
  channel: AlertChannelInput;
  secretEncrypted?: string | null;
  webhookSecretEncrypted?: string | null;
}

export interface DeleteAlertChannel extends CommandBase {
  type: 'DeleteAlertChannel';
  channelId: string;
  accountId: string;
}

/** Subscribes the channel to a check or a group (existence is checked by the application). */
export interface SetSubscription extends CommandBase, Subscription {
  type: 'SetSubscription';
  channelId: string;
  accountId: string;
}

export type AlertChannelCommand = CreateAlertChannel | UpdateAlertChannel | DeleteAlertChannel | SetSubscription;

export function decideAlertChannel(command: AlertChannelCommand, state: AlertChannelState): AlertChannelEvent[] {
  switch (command.type) {
    case 'CreateAlertChannel': {
      if (state.status !== 'absent') throw new ConflictError(`alert channel ${command.channelId} already exists`);
      const id = parseInput(z.uuid(), command.channelId, 'id');
      return [{ type: 'AlertChannelCreated', data: { channel: buildChannel(id, command, null), at: command.now } }];
    }
    case 'UpdateAlertChannel': {
      const current = activeIn(state, command);
      const channel = buildChannel(current.channel.id, command, current.channel);
      return [{ type: 'AlertChannelUpdated', data: { channel, at: command.now } }];
    }
    case 'DeleteAlertChannel': {
      activeIn(state, command);
      return [{ type: 'AlertChannelDeleted', data: { at: command.now } }];
    }
    case 'SetSubscription': {
      const subscription = parseInput(subscriptionSchema, command);
      if ((subscription.checkId === null) === (subscription.groupId === null)) {
        throw new ValidationError(
          'checkId: a subscription names either a checkId or a groupId, not both and not neither',
        );
      }
      activeIn(state, command);
      return [{ type: 'SubscriptionSet', data: { ...subscription, at: command.now } }];
    }
  }
}

/** The sealed secret a stored channel holds, if its type has one. */
export function storedSecretOf(channel: AlertChannel): string | null {
  const field = secretFieldOf[channel.type];
  if (field === null) return null;
  return ((channel.config as Record<string, unknown>)[`${field}Encrypted`] as string | null | undefined) ?? null;
}

function buildChannel(
  id: string,
  command: CreateAlertChannel | UpdateAlertChannel,
  current: AlertChannel | null,
): AlertChannel {
  const input = parseInput(alertChannelInputSchema, command.channel);
  const field = secretFieldOf[input.type];
  const base = { id, accountId: command.accountId };
  if (field === null) return { ...base, ...input } as AlertChannel;
  const { [field]: plaintext, ...config } = input.config as Record<string, unknown>;
  const encrypted = command.secretEncrypted !== undefined ? command.secretEncrypted : command.webhookSecretEncrypted;
  const given = typeof plaintext === 'string' && plaintext !== SECRET_MASK;
  // Plaintext must never reach an event: a secret without ciphertext is an application bug.
  if (given && (typeof encrypted !== 'string' || encrypted === plaintext)) {
    throw new ValidationError(`config.${field}: the secret must be encrypted before it is stored`);
  }
  // A secret left out (or sent back masked) keeps the stored one, while the type stays the same.
  const kept = current?.type === input.type ? storedSecretOf(current) : null;
  const sealed = encrypted !== undefined ? encrypted : plaintext === null ? null : kept;
  if (sealed === null && input.type !== 'WEBHOOK') {
    throw new ValidationError(`config.${field}: required for a ${input.type} channel`);
  }
  return { ...base, ...input, config: { ...config, [`${field}Encrypted`]: sealed } } as AlertChannel;
}

function activeIn(
  state: AlertChannelState,
  command: { channelId: string; accountId: string },
): Extract<AlertChannelState, { status: 'active' }> {
  if (state.status !== 'active' || state.channel.accountId !== command.accountId) {
    throw new NotFoundError(`alert channel ${command.channelId} not found`);
  }
  return state;
}

export function evolveAlertChannel(state: AlertChannelState, event: AlertChannelEvent): AlertChannelState {
  switch (event.type) {
    case 'AlertChannelCreated':
      return {
        status: 'active',
        channel: event.data.channel,
        subscriptions: [],
        createdAt: event.data.at,
        updatedAt: event.data.at,
      };
    case 'AlertChannelUpdated':
      return state.status === 'active' ? { ...state, channel: event.data.channel, updatedAt: event.data.at } : state;
    case 'AlertChannelDeleted':
      return state.status === 'active'
        ? {
            status: 'deleted',
            accountId: state.channel.accountId,
            channelId: state.channel.id,
            deletedAt: event.data.at,
          }
        : state;
    case 'SubscriptionSet': {
      if (state.status !== 'active') return state;
      const { checkId, groupId, activated } = event.data;
      const others = state.subscriptions.filter((s) => s.checkId !== checkId || s.groupId !== groupId);
      return { ...state, subscriptions: [...others, { checkId, groupId, activated }] };
    }
  }
}

export const alertChannelDecider: Decider<AlertChannelCommand, AlertChannelEvent, AlertChannelState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveAlertChannel,
  decide: decideAlertChannel,
};
