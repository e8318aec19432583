import type { SecretBox } from '#core';
import { resolveRunVariables, type ReadModels, type RunVariables } from '#readmodels';

/**
 * Run-time variables of an account (and a check group), decrypted in this process only and kept
 * in memory for a moment, so thousands of runs a minute do not each re-read and re-decrypt them.
 * A changed variable reaches the runs within ttlMs.
 */
export class RunVariableCache {
  private readonly cached = new Map<string, { until: number; value: Promise<RunVariables> }>();

  constructor(
    private readonly readModels: ReadModels,
    private readonly box: SecretBox,
    private readonly ttlMs = 1_000,
  ) {}

  get(accountId: string, groupId: string | null, nowMs = Date.now()): Promise<RunVariables> {
    const key = `${accountId}|${groupId ?? ''}`;
    const hit = this.cached.get(key);
    if (hit && hit.until > nowMs) return hit.value;
    const value = this.load(accountId, groupId);
    this.cached.set(key, { until: nowMs + this.ttlMs, value });
    // A failed read is not kept: the next run tries again.
    value.catch(() => this.cached.delete(key));
    if (this.cached.size > 10_000) this.sweep(nowMs);
    return value;
  }

  private async load(accountId: string, groupId: string | null): Promise<RunVariables> {
    const view = groupId ? await this.readModels.checkGroup(groupId) : null;
    const group = view && view.accountId === accountId ? view.group : null;
    return resolveRunVariables(this.readModels, this.box, accountId, group);
  }

  private sweep(nowMs: number): void {
    for (const [key, entry] of this.cached) if (entry.until <= nowMs) this.cached.delete(key);
  }
}
