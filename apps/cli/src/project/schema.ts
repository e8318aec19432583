import { z } from 'zod';
import { channelSchema, type DeclaredChannel } from './channels.ts';
import { logicalIdSchema, MARKER_PREFIX } from '#project-markers';
import { windowSchema, type DeclaredWindow } from './windows.ts';

export { logicalIdSchema, markers } from '#project-markers';
export type { DeclaredChannel, DeclaredWindow };

/**
 * The project file of `vigil deploy` and `vigil test`: checks, check groups, alert channels,
 * subscriptions and maintenance windows, each with a logical id that stays in the file. Only the envelope is checked here
 * (ids, references, the markers deploy owns); the fields of each resource are the API's own, and
 * the API validates them and names the field when one is wrong.
 */

const projectIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'must be 1-40 letters, digits, ".", "_" or "-", starting alphanumeric');

const userTags = z
  .array(z.string())
  .refine((tags) => tags.every((tag) => !tag.trim().startsWith(MARKER_PREFIX)), {
    message: `tags starting with "${MARKER_PREFIX}" are set by deploy`,
  })
  .optional();

// Fields the API sets itself, or that deploy derives from the logical ids: never in the file.
const forbidden = (fields: string[]) => (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const field of fields)
    if (field in value) ctx.addIssue({ code: 'custom', path: [field], message: messages[field] ?? 'is set by deploy' });
};
const messages: Record<string, string> = {
  id: 'is chosen by the server; resources are matched by logicalId',
  groupId: 'use group: <logicalId of a check group>',
};

const groupSchema = z
  .looseObject({ logicalId: logicalIdSchema, name: z.string().trim().min(1), tags: userTags })
  .superRefine(forbidden(['id']));

/**
 * Where a script check's code lives, as Checkly's constructs say it: `entrypoint`, a test file
 * (relative to the project file); `content`, the text inline; `directory`, a PLAYWRIGHT check's
 * test project. Loading replaces it with the API's `script` or `files`.
 */
export const codeSchema = z
  .strictObject({
    entrypoint: z.string().min(1).optional(),
    content: z.string().min(1).optional(),
    directory: z.string().min(1).optional(),
  })
  .refine((code) => Object.values(code).filter((v) => v !== undefined).length === 1, {
    message: 'name exactly one of entrypoint, content or directory',
  });
const checkSchema = z
  .looseObject({
    logicalId: logicalIdSchema,
    name: z.string().trim().min(1),
    checkType: z.string().min(1),
    group: logicalIdSchema.optional(),
    tags: userTags,
    code: codeSchema.optional(),
  })
  .superRefine(forbidden(['id', 'groupId']))
  .superRefine((check, ctx) => {
    if (check.code === undefined) return;
    for (const field of ['script', 'files'])
      if (field in check) ctx.addIssue({ code: 'custom', path: ['code'], message: `give code or ${field}, not both` });
    if (check.code.directory !== undefined && check.checkType !== 'PLAYWRIGHT')
      ctx.addIssue({
        code: 'custom',
        path: ['code', 'directory'],
        message: 'a test project (directory) makes a PLAYWRIGHT check; use entrypoint for one file',
      });
  });

const subscriptionSchema = z
  .strictObject({ channel: logicalIdSchema, check: logicalIdSchema.optional(), group: logicalIdSchema.optional() })
  .refine((s) => (s.check === undefined) !== (s.group === undefined), {
    message: 'name exactly one of check or group',
  });

export const projectFileSchema = z
  .strictObject({
    project: projectIdSchema,
    checkGroups: z.array(groupSchema).default([]),
    checks: z.array(checkSchema).default([]),
    alertChannels: z.array(channelSchema).default([]),
    subscriptions: z.array(subscriptionSchema).default([]),
    maintenanceWindows: z.array(windowSchema).default([]),
  })
  .superRefine((file, ctx) => {
    const ids = (list: Array<{ logicalId: string }>, key: string) => {
      const seen = new Set<string>();
      list.forEach((item, index) => {
        if (seen.has(item.logicalId))
          ctx.addIssue({ code: 'custom', path: [key, index, 'logicalId'], message: `duplicate ${item.logicalId}` });
        seen.add(item.logicalId);
      });
      return seen;
    };
    const groups = ids(file.checkGroups, 'checkGroups');
    const checks = ids(file.checks, 'checks');
    const channels = ids(file.alertChannels, 'alertChannels');
    ids(file.maintenanceWindows, 'maintenanceWindows');
    const unknown = (path: Array<string | number>, what: string, id: string) =>
      ctx.addIssue({ code: 'custom', path, message: `no ${what} with logicalId ${id} in this file` });
    file.checks.forEach((check, index) => {
      if (check.group !== undefined && !groups.has(check.group))
        unknown(['checks', index, 'group'], 'check group', check.group);
    });
    file.subscriptions.forEach((s, index) => {
      if (!channels.has(s.channel)) unknown(['subscriptions', index, 'channel'], 'alert channel', s.channel);
      if (s.check !== undefined && !checks.has(s.check)) unknown(['subscriptions', index, 'check'], 'check', s.check);
      if (s.group !== undefined && !groups.has(s.group))
        unknown(['subscriptions', index, 'group'], 'check group', s.group);
    });
    file.maintenanceWindows.forEach((window, index) => {
      (window.checks ?? []).forEach((check, at) => {
        if (!checks.has(check)) unknown(['maintenanceWindows', index, 'checks', at], 'check', check);
      });
    });
  });

export type ProjectFile = z.output<typeof projectFileSchema>;
export type DeclaredGroup = ProjectFile['checkGroups'][number];
export type DeclaredCheck = ProjectFile['checks'][number];
