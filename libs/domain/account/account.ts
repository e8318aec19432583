import { z } from 'zod';
import { ConflictError, NotFoundError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, nameSchema, parseInput, timestampSchema } from '../validation.ts';
import {
  alertSettingsSchema,
  defaultAlertSettings,
  type AlertSettings,
  type AlertSettingsInput,
} from './alert-settings.ts';

export const plans = ['hobby', 'team', 'enterprise'] as const;
export type Plan = (typeof plans)[number];
export const planSchema = z.enum(plans);

// Runtime ids are checked against the catalogue by the application; here only their shape.
const runtimeIdSchema = z.string().min(1).max(64).nullable();
const settingsSchema = z.record(z.string(), z.unknown());

export const accountEvents = defineEvents({
  AccountCreated: z.object({
    accountId: idSchema,
    name: nameSchema,
    plan: planSchema,
    runtimeId: runtimeIdSchema,
    settings: settingsSchema,
    alertSettings: alertSettingsSchema,
    createdAt: timestampSchema,
  }),
  AccountUpdated: z.object({
    name: nameSchema.optional(),
    runtimeId: runtimeIdSchema.optional(),
    settings: settingsSchema.optional(),
    alertSettings: alertSettingsSchema.optional(),
    updatedAt: timestampSchema,
  }),
});
export type AccountEvent = EventsOf<typeof accountEvents.data>;
export const accountEventSchema = accountEvents.schema;
export const parseAccountEvent = accountEvents.parse;

export interface Account {
  accountId: string;
  name: string;
  plan: Plan;
  runtimeId: string | null;
  settings: Record<string, unknown>;
  alertSettings: AlertSettings;
  createdAt: string;
  updatedAt: string;
}

export type AccountState = { status: 'absent' } | ({ status: 'active' } & Account);

export interface CreateAccount extends CommandBase {
  type: 'CreateAccount';
  accountId: string;
  name: string;
  plan: Plan;
  runtimeId?: string | null;
  settings?: Record<string, unknown>;
  /** Partial settings are completed with the defaults. */
  alertSettings?: AlertSettingsInput;
}

/** Omitted fields stay as they are; alertSettings, when given, replaces the whole object. */
export interface UpdateAccount extends CommandBase {
  type: 'UpdateAccount';
  accountId: string;
  name?: string;
  runtimeId?: string | null;
  settings?: Record<string, unknown>;
  alertSettings?: AlertSettingsInput;
}

export type AccountCommand = CreateAccount | UpdateAccount;

/** CreateAccount's fields (the account id is minted by the application). */
export const accountCreateInputSchema = z.object({
  accountId: idSchema,
  name: nameSchema,
  plan: planSchema,
  runtimeId: runtimeIdSchema.default(null),
  settings: settingsSchema.default({}),
  alertSettings: alertSettingsSchema.optional(),
});

/** The body of an account update: every field optional; omitted fields stay as they are. */
export const accountUpdateInputSchema = z.object({
  name: nameSchema.optional(),
  runtimeId: runtimeIdSchema.optional(),
  settings: settingsSchema.optional(),
  alertSettings: alertSettingsSchema.optional(),
});

export function decideAccount(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'CreateAccount': {
      if (state.status !== 'absent') throw new ConflictError(`account ${command.accountId} already exists`);
      const input = parseInput(accountCreateInputSchema, command);
      return [
        {
          type: 'AccountCreated',
          data: {
            accountId: input.accountId,
            name: input.name,
            plan: input.plan,
            runtimeId: input.runtimeId,
            settings: input.settings,
            alertSettings: input.alertSettings ?? structuredClone(defaultAlertSettings),
            createdAt: command.now,
          },
        },
      ];
    }
    case 'UpdateAccount': {
      if (state.status !== 'active') throw new NotFoundError(`account ${command.accountId} not found`);
      const input = parseInput(accountUpdateInputSchema, command);
      const data: Extract<AccountEvent, { type: 'AccountUpdated' }>['data'] = { updatedAt: command.now };
      if (input.name !== undefined) data.name = input.name;
      if (input.runtimeId !== undefined) data.runtimeId = input.runtimeId;
      if (input.settings !== undefined) data.settings = input.settings;
      if (input.alertSettings !== undefined) data.alertSettings = input.alertSettings;
      return [{ type: 'AccountUpdated', data }];
    }
  }
}

export function evolveAccount(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'AccountCreated': {
      const { createdAt, ...rest } = event.data;
      return { status: 'active', ...rest, createdAt, updatedAt: createdAt };
    }
    case 'AccountUpdated': {
      if (state.status !== 'active') return state;
      const { updatedAt, ...changes } = event.data;
      return { ...state, ...changes, updatedAt };
    }
  }
}

export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveAccount,
  decide: decideAccount,
};
