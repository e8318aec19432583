import { randomBytes } from 'node:crypto';
import { NotFoundError, ValidationError } from '#core';
import {
  checkDecider,
  checkGroupDecider,
  maskGroupVariables,
  streamNames,
  type CheckCommand,
  type CheckGroupCommand,
  type CheckGroupInput,
  type Check,
  type CheckInput,
  type CheckResponse,
} from '#domain';
import type { CheckGroupView, CheckView, ReadModels } from '#readmodels';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import { newId } from '../request-context.ts';
import type { LocationCatalogue } from '../locations.ts';
import type { RuntimeCatalogue } from '../runtimes/catalogue.ts';

/** 24 random bytes, URL-safe: the ping URL is the only credential a heartbeat needs. */
function mintPingToken(): string {
  return randomBytes(24).toString('base64url');
}

export interface CheckFilter {
  checkType?: string | undefined;
  tag?: string | undefined;
  limit: number;
  page: number;
}

/** Checks and check groups: event-sourced like the rest of the control plane. */
export class CheckService {
  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    private readonly runtimes: RuntimeCatalogue,
    private readonly publicUrl: string,
    private readonly locations?: LocationCatalogue,
  ) {}

  async createCheck(access: Access, input: CheckInput) {
    await this.assertReferences(access, input);
    const checkId = newId();
    const outcome = await this.commands.run(
      checkDecider,
      streamNames.check(checkId),
      (): CheckCommand => ({
        type: 'CreateCheck',
        checkId,
        accountId: access.accountId,
        check: input,
        pingToken: mintPingToken(),
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return this.present((outcome.state as CheckView).check);
  }

  async updateCheck(access: Access, checkId: string, input: CheckInput) {
    await this.getCheck(access, checkId);
    await this.assertReferences(access, input);
    const outcome = await this.commands.run(
      checkDecider,
      streamNames.check(checkId),
      (): CheckCommand => ({
        type: 'UpdateCheck',
        checkId,
        accountId: access.accountId,
        check: input,
        pingToken: mintPingToken(),
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return this.present((outcome.state as CheckView).check);
  }

  /** A new ping URL for a heartbeat check; the old one stops working at once. */
  async rotateHeartbeatToken(access: Access, checkId: string): Promise<CheckResponse> {
    await this.getCheck(access, checkId);
    const outcome = await this.commands.run(
      checkDecider,
      streamNames.check(checkId),
      (): CheckCommand => ({
        type: 'RotateHeartbeatToken',
        checkId,
        accountId: access.accountId,
        pingToken: mintPingToken(),
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return this.present((outcome.state as CheckView).check);
  }

  /** The check as the API shows it: a heartbeat check with its ping URL. */
  present(check: Check): CheckResponse {
    // Only a heartbeat with a definition has a token; every other check is shown as stored.
    if (check.checkType !== 'HEARTBEAT' || !check.heartbeat) return check as CheckResponse;
    const pingUrl = `${this.publicUrl.replace(/\/$/, '')}/ping/${check.heartbeat.pingToken}`;
    return { ...check, heartbeat: { ...check.heartbeat, pingUrl } };
  }

  async deleteCheck(access: Access, checkId: string): Promise<void> {
    await this.getCheck(access, checkId);
    await this.commands.run(
      checkDecider,
      streamNames.check(checkId),
      (): CheckCommand => ({
        type: 'DeleteCheck',
        checkId,
        accountId: access.accountId,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
  }

  /** 404 unless the check exists in the caller's account: ids never leak across accounts. */
  async getCheck(access: Access, checkId: string): Promise<CheckView> {
    const check = await this.readModels.check(checkId);
    if (!check || check.accountId !== access.accountId) throw new NotFoundError(`Check ${checkId} not found`);
    return check;
  }

  async listChecks(access: Access, filter: CheckFilter) {
    const all = (await this.readModels.checks(access.accountId))
      .map((view) => view.check)
      .filter((check) => (filter.checkType ? check.checkType === filter.checkType : true))
      .filter((check) => (filter.tag ? check.tags.includes(filter.tag) : true))
      .map((check) => this.present(check));
    const start = (filter.page - 1) * filter.limit;
    return { items: all.slice(start, start + filter.limit), total: all.length };
  }

  async createGroup(access: Access, input: CheckGroupInput) {
    if (input.runtimeId) this.runtimes.assertUsable(input.runtimeId);
    await this.locations?.assertUsable(access.accountId, input.locations ?? []);
    const groupId = newId();
    const outcome = await this.commands.run(
      checkGroupDecider,
      streamNames.checkGroup(groupId),
      (): CheckGroupCommand => ({
        type: 'CreateCheckGroup',
        groupId,
        accountId: access.accountId,
        group: input,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return maskGroupVariables((outcome.state as CheckGroupView).group, access);
  }

  async updateGroup(access: Access, groupId: string, input: CheckGroupInput) {
    await this.getGroup(access, groupId);
    if (input.runtimeId) this.runtimes.assertUsable(input.runtimeId);
    await this.locations?.assertUsable(access.accountId, input.locations ?? []);
    const outcome = await this.commands.run(
      checkGroupDecider,
      streamNames.checkGroup(groupId),
      (): CheckGroupCommand => ({
        type: 'UpdateCheckGroup',
        groupId,
        accountId: access.accountId,
        group: input,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return maskGroupVariables((outcome.state as CheckGroupView).group, access);
  }

  async deleteGroup(access: Access, groupId: string): Promise<void> {
    await this.getGroup(access, groupId);
    const checkCount = await this.readModels.groupCheckCount(groupId);
    await this.commands.run(
      checkGroupDecider,
      streamNames.checkGroup(groupId),
      (): CheckGroupCommand => ({
        type: 'DeleteCheckGroup',
        groupId,
        accountId: access.accountId,
        checkCount,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
  }

  async getGroup(access: Access, groupId: string): Promise<CheckGroupView> {
    const group = await this.readModels.checkGroup(groupId);
    if (!group || group.accountId !== access.accountId) throw new NotFoundError(`Check group ${groupId} not found`);
    return group;
  }

  async listGroups(access: Access, page: { limit: number; page: number }) {
    const all = (await this.readModels.checkGroups(access.accountId)).map((view) =>
      maskGroupVariables(view.group, access),
    );
    const start = (page.page - 1) * page.limit;
    return { items: all.slice(start, start + page.limit), total: all.length };
  }

  private async assertReferences(access: Access, input: CheckInput): Promise<void> {
    if (input.runtimeId) this.runtimes.assertUsable(input.runtimeId);
    await this.locations?.assertUsable(access.accountId, input.locations ?? [], {
      heartbeat: input.checkType === 'HEARTBEAT',
    });
    let groupRuntimeId: string | null = null;
    if (input.groupId) {
      const group = await this.readModels.checkGroup(input.groupId);
      if (!group || group.accountId !== access.accountId)
        throw new ValidationError(`groupId: check group ${input.groupId} not found in this account`);
      groupRuntimeId = group.group.runtimeId;
    }
    // A script check naming no runtime runs in its group's, else its account's (resolved at run
    // time, as Checkly does); that one must not be removed either.
    if (!input.runtimeId && runsInRuntime(input)) {
      const runtime = this.runtimes.effective(groupRuntimeId, access.account.runtimeId);
      const source = groupRuntimeId ? "the group's" : "the account's";
      this.runtimes.assertUsable(runtime.name, `runtimeId (unset, so ${source} runtime)`);
    }
  }
}

/** Checks whose runs execute a script in a runtime; a BROWSER check does when it carries a script. */
function runsInRuntime(input: CheckInput): boolean {
  const definition = input as { script?: unknown; files?: unknown };
  return (
    input.checkType === 'MULTI_STEP' ||
    input.checkType === 'PLAYWRIGHT' ||
    definition.script !== undefined ||
    definition.files !== undefined
  );
}
