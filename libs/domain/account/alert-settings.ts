import { z } from 'zod';

export const escalationTypes = ['RUN_BASED', 'TIME_BASED'] as const;
export const minutesFailingThresholds = [5, 10, 15, 30] as const;
export const reminderIntervals = [1, 2, 3, 4, 5, 10, 15, 30] as const;

/**
 * When and how often an alert fires. Every field has a default, so a partial object is accepted
 * and completed (prefault parses `{}` through the inner defaults).
 */
export const alertSettingsSchema = z.object({
  escalationType: z.enum(escalationTypes).default('RUN_BASED'),
  runBasedEscalation: z.object({ failedRunThreshold: z.number().int().min(1).max(5).default(1) }).prefault({}),
  timeBasedEscalation: z
    .object({ minutesFailingThreshold: z.literal(minutesFailingThresholds).default(5) })
    .prefault({}),
  reminders: z
    .object({
      amount: z.number().int().min(0).max(5).default(0),
      interval: z.literal(reminderIntervals).default(5),
    })
    .prefault({}),
});

export type AlertSettings = z.output<typeof alertSettingsSchema>;
export type AlertSettingsInput = z.input<typeof alertSettingsSchema>;

export const defaultAlertSettings: AlertSettings = Object.freeze({
  escalationType: 'RUN_BASED',
  runBasedEscalation: Object.freeze({ failedRunThreshold: 1 }),
  timeBasedEscalation: Object.freeze({ minutesFailingThreshold: 5 }),
  reminders: Object.freeze({ amount: 0, interval: 5 }),
}) as AlertSettings;
