/** How fast an account's recent starts fade: a half-life, so "recent" needs no buckets per account. */
const HALF_LIFE_MS = 20_000;
/** Accounts whose decayed activity fell below this are forgotten (and no longer count as active). */
const FORGET_BELOW = 0.01;
const RECOUNT_EVERY_MS = 1_000;
/** Accounts a claim's sparing rule lists at most (they travel with every claim). */
const MAX_LISTED = 1_000;

interface Decayed {
  value: number;
  at: number;
}

const decay = (d: Decayed, nowMs: number) => d.value * 2 ** (-(nowMs - d.at) / HALF_LIFE_MS);

/**
 * The fairness rule of a saturated runner, per process (a deficit rule): an account that started
 * under half an equal share of all recent starts here lately is below its share, and its late
 * runs are not skipped for lateness (only once their window has passed). A tenant with 10 checks
 * therefore keeps its runs while one with 100,000 gives up the windows the runner cannot start
 * in time. Starts decay with a 20 s half-life, so shares follow the load within seconds; the cost
 * is constant per run (the active accounts are recounted at most once a second).
 */
export class FairShare {
  private readonly accounts = new Map<string, Decayed>();
  private total: Decayed = { value: 0, at: 0 };
  private active = 0;
  private countedAt = 0;

  /** An account with a due run, started or not: it counts among the accounts sharing the runner. */
  seen(accountId: string, nowMs: number): void {
    if (!this.accounts.has(accountId)) {
      this.accounts.set(accountId, { value: 0, at: nowMs });
      this.active += 1;
    }
  }

  started(accountId: string, nowMs: number): void {
    const own = this.accounts.get(accountId);
    if (own) this.accounts.set(accountId, { value: decay(own, nowMs) + 1, at: nowMs });
    else {
      this.accounts.set(accountId, { value: 1, at: nowMs });
      this.active += 1;
    }
    this.total = { value: decay(this.total, nowMs) + 1, at: nowMs };
  }

  /** True when the account started under half an equal share of the recent starts of the accounts seen (and one fewer at least). */
  belowShare(accountId: string, nowMs: number): boolean {
    this.recount(nowMs);
    const own = this.accounts.get(accountId);
    const mine = own ? decay(own, nowMs) : 0;
    // Well below (under half): accounts near an equal share take turns being a little under it,
    // and sparing them all would let every late run through.
    return mine + 1 <= decay(this.total, nowMs) / Math.max(1, this.active) / 2;
  }

  /**
   * The sparing rule for a claim that skips late windows itself: the accounts not below their
   * share are listed and every other account (those not seen lately too) is spared, as belowShare
   * would answer. When even an unseen account is not below its share, nobody is spared. At most
   * MAX_LISTED accounts are listed (the heaviest); an account left off is spared by the claim and
   * its late runs are skipped by the runner instead, at the cost of a claim each.
   */
  lateRule(nowMs: number): { groups: string[]; spareListed: boolean } {
    this.recount(nowMs);
    const threshold = decay(this.total, nowMs) / Math.max(1, this.active) / 2;
    if (1 > threshold) return { groups: [], spareListed: true };
    const heavy: Array<[string, number]> = [];
    for (const [accountId, d] of this.accounts) {
      const mine = decay(d, nowMs);
      if (mine + 1 > threshold) heavy.push([accountId, mine]);
    }
    if (heavy.length > MAX_LISTED) heavy.sort((a, b) => b[1] - a[1]).length = MAX_LISTED;
    return { groups: heavy.map(([accountId]) => accountId), spareListed: false };
  }

  private recount(nowMs: number): void {
    if (nowMs - this.countedAt < RECOUNT_EVERY_MS) return;
    this.countedAt = nowMs;
    for (const [accountId, d] of this.accounts)
      if (decay(d, nowMs) < FORGET_BELOW && nowMs - d.at > HALF_LIFE_MS) this.accounts.delete(accountId);
    this.active = this.accounts.size;
  }
}
