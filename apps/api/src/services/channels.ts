import { validateHeaderName } from 'node:http';
import { NotFoundError, ValidationError, type SecretBox } from '#core';
import {
  alertChannelDecider,
  secretFieldOf,
  storedSecretOf,
  streamNames,
  SECRET_MASK,
  type AlertChannelCommand,
  type AlertChannelInput,
} from '#domain';
import type { AlertChannelView, ReadModels } from '#readmodels';
import { createTemplateSandbox, webhookSecretProblem, type TemplateSandbox } from '#webhooks';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import { newId } from '../request-context.ts';
import { MASK } from './variables.ts';

let sandbox: TemplateSandbox | undefined;

/**
 * Where user templates are parsed and rendered for the API (saves, previews, test sends): one
 * per process, made on first use. Its threads are unref'd, so they never hold the process open.
 */
export function templateSandbox(): TemplateSandbox {
  sandbox ??= createTemplateSandbox({ threads: 2 });
  return sandbox;
}

export type ChannelJson = ReturnType<ChannelService['present']>;

export interface ChannelServiceOptions {
  /** VIGIL_ALLOW_PRIVATE_TARGETS: plain http is then accepted where the hosted services require https. */
  allowPrivate?: boolean;
  /** Whether VIGIL_SMTP_URL is set: an EMAIL channel without it names that as its problem. */
  emailConfigured?: boolean;
}

/** The plaintext secret an input carries, if any; the mask sent back means "keep the stored one". */
function inputSecret(input: AlertChannelInput): string | null | undefined {
  const field = secretFieldOf[input.type ?? 'WEBHOOK'];
  if (field === null) return undefined;
  const value = (input.config as Record<string, unknown>)[field] as string | null | undefined;
  return value === SECRET_MASK && input.type !== undefined && input.type !== 'WEBHOOK' ? undefined : value;
}

/** Alert channels of every type: event-sourced, checked when saved, secrets sealed and write-only. */
export class ChannelService {
  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    private readonly box: SecretBox,
    private readonly options: ChannelServiceOptions = {},
  ) {}

  async create(access: Access, input: AlertChannelInput) {
    await checkChannel(input, this.options);
    const channelId = newId();
    const secret = inputSecret(input);
    const outcome = await this.commands.run(
      alertChannelDecider,
      streamNames.alertChannel(channelId),
      (): AlertChannelCommand => ({
        type: 'CreateAlertChannel',
        channelId,
        accountId: access.accountId,
        channel: input,
        secretEncrypted: secret ? this.box.encrypt(secret) : null,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return this.present(outcome.state as AlertChannelView);
  }

  async update(access: Access, channelId: string, input: AlertChannelInput) {
    await this.get(access, channelId);
    await checkChannel(input, this.options);
    const secret = inputSecret(input);
    const command: AlertChannelCommand = {
      type: 'UpdateAlertChannel',
      channelId,
      accountId: access.accountId,
      channel: input,
      now: this.commands.now(),
      actor: access.actor,
    };
    if (secret !== undefined) command.secretEncrypted = secret === null ? null : this.box.encrypt(secret);
    const outcome = await this.commands.run(alertChannelDecider, streamNames.alertChannel(channelId), () => command, {
      accountId: access.accountId,
      actor: access.actor,
    });
    return this.present(outcome.state as AlertChannelView);
  }

  async delete(access: Access, channelId: string): Promise<void> {
    await this.get(access, channelId);
    await this.commands.run(
      alertChannelDecider,
      streamNames.alertChannel(channelId),
      (): AlertChannelCommand => ({
        type: 'DeleteAlertChannel',
        channelId,
        accountId: access.accountId,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
  }

  async subscribe(
    access: Access,
    channelId: string,
    input: { checkId?: string | null | undefined; groupId?: string | null | undefined; activated: boolean },
  ) {
    await this.get(access, channelId);
    const checkId = input.checkId ?? null;
    const groupId = input.groupId ?? null;
    if ((checkId === null) === (groupId === null))
      throw new ValidationError('checkId, groupId: give exactly one of them');
    if (checkId) {
      const check = await this.readModels.check(checkId);
      if (!check || check.accountId !== access.accountId) throw new NotFoundError(`Check ${checkId} not found`);
    } else {
      const group = await this.readModels.checkGroup(groupId!);
      if (!group || group.accountId !== access.accountId) throw new NotFoundError(`Check group ${groupId} not found`);
    }
    const outcome = await this.commands.run(
      alertChannelDecider,
      streamNames.alertChannel(channelId),
      (): AlertChannelCommand => ({
        type: 'SetSubscription',
        channelId,
        accountId: access.accountId,
        checkId,
        groupId,
        activated: input.activated,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return this.present(outcome.state as AlertChannelView);
  }

  async get(access: Access, channelId: string): Promise<AlertChannelView> {
    const channel = await this.readModels.alertChannel(channelId);
    if (!channel || channel.channel.accountId !== access.accountId)
      throw new NotFoundError(`Alert channel ${channelId} not found`);
    return channel;
  }

  /**
   * A stored webhook channel's signing secret, for a preview of its request with the signature
   * headers it really gets. The preview shows the headers, never the secret.
   */
  async signingSecret(access: Access, channelId: string): Promise<string | null> {
    const view = await this.get(access, channelId);
    if (view.channel.type !== 'WEBHOOK')
      throw new ValidationError(`channelId: ${channelId} is a ${view.channel.type} channel; preview renders webhooks`);
    const sealed = view.channel.config.webhookSecretEncrypted;
    return sealed ? this.box.decrypt(sealed) : null;
  }

  async list(
    access: Access,
    page: { limit: number; page: number },
    lastAttempt: (channelId: string) => Promise<LastAttempt | undefined> = async () => undefined,
  ) {
    const all = await this.readModels.alertChannels(access.accountId);
    const start = (page.page - 1) * page.limit;
    const items = await Promise.all(
      all.slice(start, start + page.limit).map(async (view) => this.present(view, await lastAttempt(view.channel.id))),
    );
    return { items, total: all.length };
  }

  present(view: AlertChannelView, lastAttempt?: LastAttempt) {
    const channel = view.channel;
    const field = secretFieldOf[channel.type];
    const sealed = storedSecretOf(channel);
    const config: Record<string, unknown> = { ...channel.config };
    if (field !== null) {
      delete config[`${field}Encrypted`];
      config[field] = sealed ? MASK : null;
    }
    return {
      ...channel,
      // Each type's stored config less its sealed secret, plus the secret masked: the route's schema says which.
      config: config as never,
      problems: this.problems(view, sealed, lastAttempt),
      subscriptions: view.subscriptions,
      createdAt: view.createdAt,
      updatedAt: view.updatedAt,
    };
  }

  /**
   * The channel's error state: why its deliveries cannot succeed, as far as is known. A secret
   * saved before secrets were checked on save (or sealed with another key), email on a server
   * with no SMTP relay, and the last attempt when it was refused (an address the policy blocks,
   * a template that cannot render): none heals by retrying.
   */
  private problems(
    view: AlertChannelView,
    sealedSecret: string | null,
    lastAttempt: LastAttempt | undefined,
  ): string[] {
    const problems: string[] = [];
    const field = secretFieldOf[view.channel.type];
    if (sealedSecret && field !== null) {
      let problem: string | undefined;
      try {
        const secret = this.box.decrypt(sealedSecret);
        if (view.channel.type === 'WEBHOOK') problem = webhookSecretProblem(secret);
      } catch {
        problem = 'the stored secret cannot be decrypted with the current key';
      }
      if (problem) problems.push(`config.${field}: ${problem}; every delivery is refused until it is replaced`);
    }
    if (view.channel.type === 'EMAIL' && this.options.emailConfigured === false)
      problems.push('email is not configured on this server (VIGIL_SMTP_URL); every delivery is refused');
    if (lastAttempt?.outcome === 'refused')
      problems.push(`the last delivery (${lastAttempt.at}) was refused: ${lastAttempt.error ?? 'no reason recorded'}`);
    return problems;
  }
}

/** The latest delivery attempt of a channel, as far as its error state goes. */
export interface LastAttempt {
  outcome: string;
  error: string | null;
  at: string;
}

/**
 * What would make every delivery of the channel fail is refused when it is saved: a secret the
 * signer cannot use (the same rule the sender applies), a header name HTTP does not allow, and a
 * template that does not parse (the error names the field, line and column).
 */
export async function checkTemplates(input: AlertChannelInput): Promise<void> {
  if (input.type !== undefined && input.type !== 'WEBHOOK') return;
  const secret = input.config.webhookSecret;
  const problem = typeof secret === 'string' ? webhookSecretProblem(secret) : undefined;
  if (problem) throw new ValidationError(`config.webhookSecret: ${problem}`);
  (input.config.headers ?? []).forEach((header, index) => {
    try {
      validateHeaderName(header.key.trim());
    } catch {
      throw new ValidationError(
        `config.headers[${index}].key: ${JSON.stringify(header.key)} is not a valid header name`,
      );
    }
  });
  const fields: [string, string | null | undefined][] = [
    ['config.url', input.config.url],
    ['config.template', input.config.template],
    ...(input.config.headers ?? []).map((h, i): [string, string] => [`config.headers[${i}].value`, h.value]),
    ...(input.config.queryParameters ?? []).map((q, i): [string, string] => [
      `config.queryParameters[${i}].value`,
      q.value,
    ]),
  ];
  // Parsed on the sandbox's thread: a huge template costs that thread time, not the event loop's.
  const issue = await templateSandbox().validate(
    fields
      .filter((entry): entry is [string, string] => Boolean(entry[1]))
      .map(([field, source]) => ({ field, source })),
  );
  if (issue)
    throw new ValidationError(
      `${issue.field}: template does not parse at line ${issue.line}, column ${issue.column}: ${issue.message}`,
    );
}

/**
 * Checks on save beyond the schema: a webhook's templates, and https for the hosted services'
 * webhook URLs (plain http only where private targets are allowed: local relays and tests).
 */
export async function checkChannel(input: AlertChannelInput, options: ChannelServiceOptions): Promise<void> {
  if (input.type === undefined || input.type === 'WEBHOOK') return checkTemplates(input);
  const url = 'url' in input.config ? input.config.url : undefined;
  if (typeof url === 'string' && !options.allowPrivate && !/^https:/i.test(url.trim()))
    throw new ValidationError(
      `config.url: ${input.type} requires an https URL (plain http is accepted only with VIGIL_ALLOW_PRIVATE_TARGETS=true)`,
    );
}
