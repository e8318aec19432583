import { z } from 'zod';
import { alertSettingsSchema, planSchema } from '#domain';
import type { AccountView } from '#readmodels';

/** Lists take limit (1–100, default 10) and page (1–1,000,000, default 1); a page past the last is empty. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(10).describe('Items per page, 1–100, default 10.'),
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(1)
    .describe('Page, from 1; a page past the last answers an empty list.'),
});

export const accountJsonSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    runtimeId: z.string().nullable(),
    plan: planSchema,
    settings: z.record(z.string(), z.unknown()),
    alertSettings: alertSettingsSchema,
  })
  .meta({ id: 'Account' });
export type AccountJson = z.infer<typeof accountJsonSchema>;

export function accountJson(account: AccountView | ({ accountId: string } & Omit<AccountView, 'status'>)): AccountJson {
  return {
    id: account.accountId,
    name: account.name,
    runtimeId: account.runtimeId,
    plan: account.plan,
    settings: account.settings,
    alertSettings: account.alertSettings,
  };
}

/** Path parameter {id}; anything but a UUID cannot name a resource, so it is a 404, not a 400. */
export const idParams = z.object({ id: z.string().max(64) });
