import type { Check } from '#domain';
import type { ReadModels } from '#readmodels';
import type { RuntimeCatalogue } from '#runtimes';

/**
 * The runtime a script check runs in when it names none: its group's, else its account's, else
 * today's current one (as Checkly resolves it). Account and group are read through the read
 * models; a removed or unknown runtime is still returned by name, so the run fails naming it.
 */
export class RunRuntimeResolver {
  private readonly cached = new Map<string, { until: number; value: Promise<string | undefined> }>();

  constructor(
    private readonly readModels: ReadModels,
    private readonly catalogue: RuntimeCatalogue,
    private readonly ttlMs = 1_000,
  ) {}

  async resolve(
    accountId: string,
    check: Pick<Check, 'runtimeId' | 'groupId'>,
    nowMs = Date.now(),
  ): Promise<string | undefined> {
    if (check.runtimeId) return check.runtimeId;
    const key = `${accountId}|${check.groupId ?? ''}`;
    const hit = this.cached.get(key);
    if (hit && hit.until > nowMs) return hit.value;
    const value = this.load(accountId, check.groupId);
    this.cached.set(key, { until: nowMs + this.ttlMs, value });
    value.catch(() => this.cached.delete(key));
    if (this.cached.size > 10_000) for (const [k, e] of this.cached) if (e.until <= nowMs) this.cached.delete(k);
    return value;
  }

  private async load(accountId: string, groupId: string | null): Promise<string | undefined> {
    const [group, account] = await Promise.all([
      groupId ? this.readModels.checkGroup(groupId) : null,
      this.readModels.account(accountId),
    ]);
    const groupRuntime = group && group.accountId === accountId ? group.group.runtimeId : null;
    const named = groupRuntime ?? account?.runtimeId ?? null;
    if (named) return named;
    try {
      return this.catalogue.current.name;
    } catch {
      return undefined;
    }
  }
}
