import { ConflictError, NotFoundError } from '#core';
import { checkDecider, streamNames, type CheckCommand, type CheckTrigger } from '#domain';
import type { CheckView, ReadModels } from '#readmodels';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import type { RateLimiter } from '../plugins/rate-limit.ts';
import { newId } from '../request-context.ts';
import { admitTriggerCall, newTriggerToken } from './trigger-tokens.ts';
import type { CheckRunService } from './check-runs.ts';
import type { CheckService } from './checks.ts';

/** What a trigger URL answers: whether the runs passed, no more (the URL needs no key). */
export interface TriggerCallOutcome {
  checkId: string;
  hasFailures: boolean;
  results: Array<{ resultId: string; runLocation: string; hasFailures: boolean; responseTime: number }>;
}

/**
 * Check triggers: a secret URL per check that starts a run, as Checkly's trigger URLs do. The run
 * is the manual trigger's (POST /v1/checks/{id}/trigger): same locations, run slots and storage.
 */
export class CheckTriggerService {
  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    private readonly checks: CheckService,
    private readonly runs: CheckRunService,
    private readonly rateLimiter: RateLimiter,
    private readonly perMinute: number,
  ) {}

  /** The check's trigger, created if it has none; `created` tells which (201 or 200). */
  async create(access: Access, checkId: string): Promise<{ trigger: CheckTrigger; created: boolean }> {
    const view = await this.checks.getCheck(access, checkId);
    if (view.trigger) return { trigger: view.trigger, created: false };
    try {
      const outcome = await this.command(access, checkId, {
        type: 'CreateCheckTrigger',
        triggerId: newId(),
        token: newTriggerToken(),
      });
      return { trigger: (outcome as CheckView).trigger!, created: true };
    } catch (error) {
      // Two creates raced: the other one's trigger is the check's trigger.
      if (!(error instanceof ConflictError)) throw error;
      return { trigger: await this.get(access, checkId), created: false };
    }
  }

  async get(access: Access, checkId: string): Promise<CheckTrigger> {
    const view = await this.checks.getCheck(access, checkId);
    if (!view.trigger) throw new NotFoundError(`Check ${checkId} has no trigger`);
    return view.trigger;
  }

  /** The URL stops working at once; a new create mints a new token. */
  async delete(access: Access, checkId: string): Promise<void> {
    await this.get(access, checkId);
    await this.command(access, checkId, { type: 'DeleteCheckTrigger' });
  }

  /**
   * A call of the trigger URL. A wrong token, a check with no trigger and an unknown check all
   * answer the same 404, so the URL reveals nothing but whether it is whole.
   */
  async call(checkId: string, token: string): Promise<TriggerCallOutcome> {
    const view = await this.readModels.check(checkId).catch(() => null);
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
    const { results } = await this.runs.trigger(access, checkId);
    await this.command(access, checkId, { type: 'CallCheckTrigger', triggerId: trigger.id }).catch((error) => {
      // Deleted while the run went on: the run stands, there is no trigger left to count it.
      if (!(error instanceof NotFoundError)) throw error;
    });
    const summary = results.map(({ result }) => ({
      resultId: result.id,
      runLocation: result.runLocation,
      hasFailures: result.hasFailures,
      responseTime: result.responseTime,
    }));
    return { checkId, hasFailures: summary.some((result) => result.hasFailures), results: summary };
  }

  private async command(
    access: Access,
    checkId: string,
    command:
      | { type: 'CreateCheckTrigger'; triggerId: string; token: string }
      | { type: 'CallCheckTrigger'; triggerId: string }
      | { type: 'DeleteCheckTrigger' },
  ): Promise<unknown> {
    const outcome = await this.commands.run(
      checkDecider,
      streamNames.check(checkId),
      (): CheckCommand => ({
        ...command,
        checkId,
        accountId: access.accountId,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return outcome.state;
  }
}
