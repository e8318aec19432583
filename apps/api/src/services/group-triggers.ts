import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '#core';
import { checkGroupDecider, streamNames, type CheckGroupCommand, type GroupTrigger } from '#domain';
import { triggerTokenDigest, type CheckGroupView, type CheckView, type ReadModels } from '#readmodels';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import type { RateLimiter } from '../plugins/rate-limit.ts';
import { newId } from '../request-context.ts';
import { admitTriggerCall, newTriggerToken } from './trigger-tokens.ts';
import type { CheckRunService } from './check-runs.ts';
import type { CheckService } from './checks.ts';

/** What a group trigger URL answers: whether each run passed, no more (the URL needs no key). */
export interface GroupTriggerCallOutcome {
  groupId: string;
  hasFailures: boolean;
  results: Array<{
    checkId: string;
    resultId: string;
    runLocation: string;
    hasFailures: boolean;
    responseTime: number;
  }>;
}

/** Checks of one group started at once: the account's bound on API-started runs (5) is the real limit. */
const CONCURRENT_CHECKS = 5;
/** How long a check waits for the account's run slots (other manual runs, or a sibling's locations) before the call is a 429. */
const SLOT_WAIT_MS = 120_000;
const SLOT_POLL_MS = 250;

/**
 * Group triggers: a secret URL per check group that runs its checks, as Checkly's group trigger
 * URLs do. Each check runs as the manual trigger runs it (POST /v1/checks/{id}/trigger). Unlike a
 * check's own trigger, the group's runs only its activated checks: deactivating a check in a group
 * takes it out of the group's runs, as it takes it out of the schedule. Heartbeat checks (nothing
 * to run) and checks that run only at private locations (their agents run them on schedule) are
 * left out too.
 */
export class GroupTriggerService {
  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    private readonly checks: CheckService,
    private readonly runs: CheckRunService,
    private readonly rateLimiter: RateLimiter,
    private readonly perMinute: number,
  ) {}

  /** The group's trigger, created if it has none; `created` tells which (201 or 200). */
  async create(access: Access, groupId: string): Promise<{ trigger: GroupTrigger; created: boolean }> {
    const view = await this.checks.getGroup(access, groupId);
    if (view.trigger) return { trigger: view.trigger, created: false };
    try {
      const state = await this.command(access, groupId, {
        type: 'CreateGroupTrigger',
        triggerId: newId(),
        token: newTriggerToken(),
      });
      return { trigger: (state as CheckGroupView).trigger!, created: true };
    } catch (error) {
      // Two creates raced: the other one's trigger is the group's trigger.
      if (!(error instanceof ConflictError)) throw error;
      return { trigger: await this.get(access, groupId), created: false };
    }
  }

  async get(access: Access, groupId: string): Promise<GroupTrigger> {
    const view = await this.checks.getGroup(access, groupId);
    if (!view.trigger) throw new NotFoundError(`Check group ${groupId} has no trigger`);
    return view.trigger;
  }

  /** The URL stops working at once; a new create mints a new token. */
  async delete(access: Access, groupId: string): Promise<void> {
    await this.get(access, groupId);
    await this.command(access, groupId, { type: 'DeleteGroupTrigger' });
  }

  /**
   * A call of Vigil's URL (the group's UUID). A wrong token, a group with no trigger and an
   * unknown group all answer the same 404.
   */
  async call(groupId: string, token: string): Promise<GroupTriggerCallOutcome> {
    const view = await this.readModels.checkGroup(groupId).catch(() => null);
    return this.callMatched(view, token);
  }

  /**
   * A call of the URL Checkly's SDK builds, which names no account: the token's digest finds the
   * group, and the group must be the one the URL names (by its numeric id, as `matchesId` says).
   */
  async callByToken(token: string, matchesId: (groupId: string) => boolean): Promise<GroupTriggerCallOutcome> {
    const view = await this.readModels.checkGroupByTriggerDigest(triggerTokenDigest(token));
    return this.callMatched(view && matchesId(view.group.id) ? view : null, token);
  }

  private async callMatched(view: CheckGroupView | null, token: string): Promise<GroupTriggerCallOutcome> {
    const trigger = await admitTriggerCall(view?.trigger, token, this.rateLimiter, this.perMinute);
    if (!view) throw new NotFoundError('Unknown trigger');
    const account = await this.readModels.account(view.accountId);
    if (!account) throw new NotFoundError('Unknown trigger');
    const actor = `trigger:${trigger.id}`;
    const access: Access = {
      principal: { kind: 'service', keyId: actor, accountId: view.accountId, role: 'READ_WRITE' },
      account,
      accountId: view.accountId,
      role: 'READ_WRITE',
      actor,
      userId: null,
    };
    const groupId = view.group.id;
    const checks = (await this.readModels.groupChecks(groupId)).filter(runsFromGroupTrigger);
    const runs = await this.runAll(
      access,
      checks.map((view) => view.check.id),
    );
    await this.command(access, groupId, { type: 'CallGroupTrigger', triggerId: trigger.id }).catch((error) => {
      // Deleted while the runs went on: they stand, there is no trigger left to count them.
      if (!(error instanceof NotFoundError)) throw error;
    });
    const results = runs.flat();
    return { groupId, hasFailures: results.some((result) => result.hasFailures), results };
  }

  /** A few checks at a time, in the group's order, so a large group never meets the account's bound all at once. */
  private async runAll(access: Access, checkIds: string[]): Promise<GroupTriggerCallOutcome['results'][]> {
    const out: GroupTriggerCallOutcome['results'][] = new Array(checkIds.length);
    let next = 0;
    const worker = async () => {
      while (next < checkIds.length) {
        const index = next++;
        out[index] = await this.runOne(access, checkIds[index]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_CHECKS, checkIds.length) }, worker));
    return out;
  }

  private async runOne(access: Access, checkId: string): Promise<GroupTriggerCallOutcome['results']> {
    const deadline = Date.now() + SLOT_WAIT_MS;
    for (;;) {
      try {
        return await this.runOnce(access, checkId);
      } catch (error) {
        // The account's run slots are full (another run, or a sibling check with several locations): wait for one.
        if (!(error instanceof RateLimitedError) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, SLOT_POLL_MS));
      }
    }
  }

  private async runOnce(access: Access, checkId: string): Promise<GroupTriggerCallOutcome['results']> {
    try {
      const { results } = await this.runs.trigger(access, checkId);
      return results.map(({ result }) => ({
        checkId,
        resultId: result.id,
        runLocation: result.runLocation,
        hasFailures: result.hasFailures,
        responseTime: result.responseTime,
      }));
    } catch (error) {
      // Moved out, deleted or made private-only while the others ran: it simply is not among the runs.
      if (error instanceof ValidationError || error instanceof NotFoundError) return [];
      throw error;
    }
  }

  private async command(
    access: Access,
    groupId: string,
    command:
      | { type: 'CreateGroupTrigger'; triggerId: string; token: string }
      | { type: 'CallGroupTrigger'; triggerId: string }
      | { type: 'DeleteGroupTrigger' },
  ): Promise<unknown> {
    const outcome = await this.commands.run(
      checkGroupDecider,
      streamNames.checkGroup(groupId),
      (): CheckGroupCommand => ({
        ...command,
        groupId,
        accountId: access.accountId,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return outcome.state;
  }
}

/** Activated checks that Vigil can run on demand (see the class comment). */
function runsFromGroupTrigger(view: CheckView): boolean {
  return view.check.activated && view.check.checkType !== 'HEARTBEAT';
}
