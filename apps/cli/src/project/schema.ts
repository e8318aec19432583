import { z } from 'zod';

/**
 * The project file of `vigil deploy` and `vigil test`: checks, check groups, alert channels and
 * subscriptions, each with a logical id that stays in the file. Only the envelope is checked here
 * (ids, references, the markers deploy owns); the fields of each resource are the API's own, and
 * the API validates them and names the field when one is wrong.
 */

/** Short enough that `vigil:logical=<id>` fits a tag (64 characters). */
export const logicalIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/, 'must be 1-48 letters, digits, ".", "_" or "-", starting alphanumeric');
const projectIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'must be 1-40 letters, digits, ".", "_" or "-", starting alphanumeric');

const MARKER_PREFIX = 'vigil:';
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
  webhookSecret:
    'is a secret and does not belong in the project file; set it once with `vigil alert-channels update <id> --secret …` (deploy keeps it)',
  config: 'write the channel fields (name, url, method, headers, …) directly on the channel',
  type: 'the only channel type is WEBHOOK',
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

const keyValues = z.array(z.object({ key: z.string(), value: z.string() }));
const channelSchema = z
  .looseObject({
    logicalId: logicalIdSchema,
    name: z.string().trim().min(1),
    url: z.string().min(1),
    headers: keyValues.optional(),
    queryParameters: keyValues.optional(),
  })
  .superRefine(forbidden(['id', 'webhookSecret', 'config', 'type']));

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
  });

export type ProjectFile = z.output<typeof projectFileSchema>;
export type DeclaredGroup = ProjectFile['checkGroups'][number];
export type DeclaredCheck = ProjectFile['checks'][number];
export type DeclaredChannel = ProjectFile['alertChannels'][number];

/** The markers deploy puts on what it manages; see the README, "Monitoring as code". */
export const markers = {
  projectTag: (project: string) => `${MARKER_PREFIX}project=${project}`,
  logicalTag: (logicalId: string) => `${MARKER_PREFIX}logical=${logicalId}`,
  isMarkerTag: (tag: string) => tag.startsWith(MARKER_PREFIX),
  /** The logical id in a resource's tags, when it carries the project's marker. */
  logicalOf(project: string, tags: readonly string[]): string | undefined {
    if (!tags.includes(markers.projectTag(project))) return undefined;
    const prefix = `${MARKER_PREFIX}logical=`;
    return tags.find((tag) => tag.startsWith(prefix))?.slice(prefix.length);
  },
  /** Channels have no tags: the marker ends the name, e.g. `Ops [vigil:shop/ops]`. */
  channelName: (name: string, project: string, logicalId: string) => `${name} [vigil:${project}/${logicalId}]`,
  parseChannelName(full: string): { name: string; project: string; logicalId: string } | undefined {
    const match = /^(.*) \[vigil:([^/\]]+)\/([^\]]+)\]$/.exec(full);
    return match ? { name: match[1]!, project: match[2]!, logicalId: match[3]! } : undefined;
  },
};
