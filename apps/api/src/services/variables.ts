import { ConflictError, NotFoundError, type SecretBox } from '#core';
import {
  MASKED_VALUE,
  MAX_VARIABLES_PER_ACCOUNT,
  resultingSecret,
  visibleValue,
  streamNames,
  variableDecider,
  type CreateVariable,
  type UpdateVariable,
  type VariableCommand,
  type VariableState,
} from '#domain';
import { CachedReadModels, type ReadModels, type VariableView } from '#readmodels';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';

export const MASK = MASKED_VALUE;

export interface VariableJson {
  key: string;
  value: string;
  locked: boolean;
  secret: boolean;
}

type Active = Extract<VariableState, { status: 'active' }>;

/**
 * Environment variables. Secret values are sealed with AES-256-GCM before they enter an event,
 * and are never shown again; locked values show only to their creator and to admins.
 */
export class VariableService {
  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    private readonly box: SecretBox,
  ) {}

  async create(
    access: Access,
    input: { key: string; value: string; locked: boolean; secret: boolean },
  ): Promise<VariableJson> {
    if ((await this.readModels.variableCount(access.accountId)) >= MAX_VARIABLES_PER_ACCOUNT) {
      throw new ConflictError(
        `An account can hold at most ${MAX_VARIABLES_PER_ACCOUNT} variables (MAX_VARIABLES_PER_ACCOUNT); delete one first`,
      );
    }
    const outcome = await this.commands.run(
      variableDecider,
      streamNames.variable(access.accountId, input.key),
      (state): VariableCommand =>
        this.sealed(state, {
          type: 'CreateVariable',
          accountId: access.accountId,
          ...input,
          encrypted: false,
          now: this.commands.now(),
          actor: access.actor,
        }),
      { accountId: access.accountId, actor: access.actor },
    );
    return this.present(outcome.state as Active, access);
  }

  async update(
    access: Access,
    key: string,
    input: { key?: string | undefined; value: string; locked?: boolean | undefined; secret?: boolean | undefined },
  ): Promise<VariableJson> {
    const command: UpdateVariable = {
      type: 'UpdateVariable',
      accountId: access.accountId,
      key,
      value: input.value,
      encrypted: false,
      now: this.commands.now(),
      actor: access.actor,
    };
    if (input.key !== undefined) command.bodyKey = input.key;
    if (input.locked !== undefined) command.locked = input.locked;
    if (input.secret !== undefined) command.secret = input.secret;
    const outcome = await this.commands.run(
      variableDecider,
      streamNames.variable(access.accountId, key),
      (state) => this.sealed(state, command),
      {
        accountId: access.accountId,
        actor: access.actor,
      },
    );
    return this.present(outcome.state as Active, access);
  }

  async delete(access: Access, key: string): Promise<void> {
    await this.commands.run(
      variableDecider,
      streamNames.variable(access.accountId, key),
      (): VariableCommand => ({
        type: 'DeleteVariable',
        accountId: access.accountId,
        key,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
  }

  async get(access: Access, key: string): Promise<VariableJson> {
    const variable = await this.readModels.variable(access.accountId, key);
    if (!variable) throw new NotFoundError(`Variable ${key} not found`);
    return this.present(variable, access);
  }

  /**
   * What `get` answers, when the read cache holds the variable now (the same entry, TTL and
   * invalidation), with no promise; undefined otherwise, and the route then awaits `get`.
   */
  held(access: Access, key: string): VariableJson | undefined {
    if (!(this.readModels instanceof CachedReadModels)) return undefined;
    const variable = this.readModels.peekVariable(access.accountId, key);
    if (variable === undefined) return undefined;
    // One frozen answer per cached document and visible value (the value or the mask), so the
    // route can keep its written body beside it; a new document (any change) gets new answers.
    const value = visibleValue(variable, access);
    let answers = this.answers.get(variable);
    if (answers === undefined) this.answers.set(variable, (answers = []));
    for (const answer of answers) if (answer.value === value) return answer;
    const answer = Object.freeze(this.present(variable, access));
    answers.push(answer);
    return answer;
  }

  private readonly answers = new WeakMap<VariableView, VariableJson[]>();

  async list(access: Access, page: { limit: number; page: number }): Promise<{ items: VariableJson[]; total: number }> {
    const { items, total } = await this.readModels.variables(access.accountId, page);
    return { items: items.map((variable) => this.present(variable, access)), total };
  }

  private sealed<C extends CreateVariable | UpdateVariable>(state: VariableState, command: C): C {
    if (!resultingSecret(state, command)) return command;
    return { ...command, value: this.box.encrypt(command.value), encrypted: true };
  }

  private present(variable: VariableView | Active, access: Access): VariableJson {
    return {
      key: variable.key,
      value: visibleValue(variable, access),
      locked: variable.locked,
      secret: variable.secret,
    };
  }
}
