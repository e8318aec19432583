import { z } from 'zod';
import {
  CHANNEL_SPECS,
  CHANNEL_TYPES,
  channelTypeOf,
  configDefaults,
  knownConfig,
  type ChannelType,
} from '../channel-types.ts';
import { CliError } from '../errors.ts';
import { logicalIdSchema, markers } from '#project-markers';
import type { SecretLookup } from '../config.ts';

/**
 * Alert channels in the project file, in the shape of Checkly's constructs: the type's config
 * fields sit on the channel beside the send flags (`{type: SLACK, url, channel, sendRecovery}`).
 * A secret never sits there: the file names the environment variable deploy reads it from
 * (`serviceKey: {env: PD_ROUTING_KEY}`), so the file can be committed and CI holds the key.
 */
type Plain = Record<string, unknown>;

const SEND_FIELDS = ['sendFailure', 'sendRecovery', 'sendDegraded', 'sslExpiry', 'sslExpiryThreshold'];
/** What the API applies to a channel-level field left out. */
const SEND_DEFAULTS: Plain = {
  sendFailure: true,
  sendRecovery: true,
  sendDegraded: false,
  sslExpiry: false,
  sslExpiryThreshold: 30,
};

const envRefSchema = z.strictObject({
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name such as PD_ROUTING_KEY'),
});
export type EnvRef = z.output<typeof envRefSchema>;

const messages: Record<string, string> = {
  id: 'is chosen by the server; resources are matched by logicalId',
  config: 'write the channel fields (name, url, method, headers, …) directly on the channel',
};

function checkChannel(channel: Plain, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const type = channel.type === undefined ? 'WEBHOOK' : channelTypeOf(channel.type);
  if (!type) return issue('type', `must be one of ${CHANNEL_TYPES.join(', ')}`);
  const spec = CHANNEL_SPECS[type];
  const secret = spec.secret?.field;
  const allowed = new Set(['logicalId', 'name', 'type', ...Object.keys(spec.fields), ...SEND_FIELDS]);
  if (secret) allowed.add(secret);
  for (const key of Object.keys(channel)) {
    if (key === secret) continue;
    if (messages[key]) issue(key, messages[key]);
    else if (!allowed.has(key)) issue(key, `is not a field of ${type} channels (they take ${[...allowed].join(', ')})`);
  }
  if (!secret) return;
  if (channel[secret] === undefined) {
    if (spec.secret!.required)
      issue(secret, `${type} channels need ${secret}: { env: NAME }; deploy reads it from that environment variable`);
    return;
  }
  if (!envRefSchema.safeParse(channel[secret]).success)
    issue(
      secret,
      `is a secret and does not belong in the project file; write ${secret}: { env: NAME } and deploy reads it from the environment variable NAME` +
        (spec.secret!.required ? '' : ' (or leave it out: deploy keeps the one stored on the server)'),
    );
}

export const channelSchema = z
  .looseObject({ logicalId: logicalIdSchema, name: z.string().trim().min(1), type: z.string().optional() })
  .superRefine(checkChannel)
  // The API's spelling, whatever the file's case: `slack` and `SLACK` are the same type.
  .transform((channel) => (channel.type === undefined ? channel : { ...channel, type: channelTypeOf(channel.type)! }));
export type DeclaredChannel = z.output<typeof channelSchema>;

export const typeOf = (declared: DeclaredChannel): ChannelType => (declared.type as ChannelType) ?? 'WEBHOOK';

/** The environment variable the channel's secret comes from, if the file names one. */
export function secretRef(declared: DeclaredChannel): { field: string; env: string } | undefined {
  const field = CHANNEL_SPECS[typeOf(declared)].secret?.field;
  const ref = field ? (declared as Plain)[field] : undefined;
  return field && ref ? { field, env: (ref as EnvRef).env } : undefined;
}

/** What the plan compares: the file's fields less the logical id and the secret (the server shows it masked). */
export function declaredView(declared: DeclaredChannel): Plain {
  const { logicalId: _id, ...fields } = declared as Plain;
  const ref = secretRef(declared);
  if (ref) delete fields[ref.field];
  return fields;
}

/** A channel flattened the way the file writes it: its type's config fields beside the send flags, name unmarked. */
export function channelView(raw: Plain): Plain {
  const config = (raw.config ?? {}) as Plain;
  const view: Plain = { ...raw };
  delete view.config;
  const type = channelTypeOf(raw.type);
  if (type) Object.assign(view, knownConfig(type, config));
  view.name = markers.parseChannelName(String(config.name))?.name ?? config.name;
  return view;
}

/** The values the server has for fields the file leaves out, so deleting a line resets the field. */
export function channelDefaults(declared: DeclaredChannel): Plain {
  return { type: 'WEBHOOK', ...SEND_DEFAULTS, ...configDefaults(typeOf(declared)) };
}

/**
 * The request body. The secret is sent when its variable is set: on create it must be (see
 * missingSecrets), and on an update a variable left unset keeps the server's stored secret.
 */
export function channelBody(declared: DeclaredChannel, project: string, secretOf: SecretLookup): Plain {
  const type = typeOf(declared);
  const { logicalId, name, type: _type, ...fields } = declared as Plain & { logicalId: string; name: string };
  const config: Plain = { name: markers.channelName(name, project, logicalId) };
  const rest: Plain = {};
  const ref = secretRef(declared);
  for (const [key, value] of Object.entries(fields)) {
    if (key === ref?.field) continue;
    if (key in CHANNEL_SPECS[type].fields) config[key] = value;
    else rest[key] = value;
  }
  if (ref) {
    const secret = secretOf(ref.env);
    if (secret) config[ref.field] = secret;
  }
  return { type, config, ...rest };
}

/** The secrets a create (or a change of type, which drops the stored secret) needs but cannot read. */
export function missingSecrets(
  steps: ReadonlyArray<{
    kind: string;
    action: string;
    logicalId: string;
    declared?: unknown;
    changes: Array<{ path: string }>;
  }>,
  secretOf: SecretLookup,
): string[] {
  const missing: string[] = [];
  for (const step of steps) {
    if (step.kind !== 'alert-channel' || step.declared === undefined) continue;
    const fresh = step.action === 'create' || step.changes.some((change) => change.path === 'type');
    const ref = fresh ? secretRef(step.declared as DeclaredChannel) : undefined;
    if (ref && !secretOf(ref.env))
      missing.push(`alert-channel ${step.logicalId}: ${ref.field} reads $${ref.env}, which is not set`);
  }
  return missing;
}

/** For callers that build a body without a plan step to vet it first. */
export function requireSecret(declared: DeclaredChannel, secretOf: SecretLookup): void {
  const ref = secretRef(declared);
  if (ref && !secretOf(ref.env)) throw new CliError(`${ref.field} reads $${ref.env}, which is not set`);
}
