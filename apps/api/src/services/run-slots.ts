/**
 * Slots for probe runs started from the API: every probe run (one per location of a trigger)
 * holds one of its account's slots and one of the process's while it runs, so no request fans out
 * past the bound. Waiting runs are served first come, first served, skipping a run whose account
 * is still full so one busy account never holds up another.
 */
export class RunSlots {
  private readonly running = new Map<string, number>();
  private total = 0;
  private readonly waiting: Array<{ accountId: string; grant: () => void }> = [];

  constructor(
    readonly perAccount: number,
    readonly perProcess: number,
  ) {}

  /** True when a run of this account could start at once (nobody ahead of it waits for the same slot). */
  hasRoom(accountId: string): boolean {
    return this.fits(accountId) && !this.waiting.some((waiter) => waiter.accountId === accountId);
  }

  /** Runs work in a slot, waiting for one; a slot free now is taken before this returns. */
  async run<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    if (this.hasRoom(accountId)) this.take(accountId);
    else await new Promise<void>((grant) => this.waiting.push({ accountId, grant }));
    try {
      return await work();
    } finally {
      this.release(accountId);
    }
  }

  /** Runs in progress for an account (tests and metrics). */
  inUse(accountId: string): number {
    return this.running.get(accountId) ?? 0;
  }

  private fits(accountId: string): boolean {
    return this.inUse(accountId) < this.perAccount && this.total < this.perProcess;
  }

  private take(accountId: string): void {
    this.running.set(accountId, this.inUse(accountId) + 1);
    this.total += 1;
  }

  private release(accountId: string): void {
    this.total -= 1;
    const left = this.inUse(accountId) - 1;
    if (left <= 0) this.running.delete(accountId);
    else this.running.set(accountId, left);
    for (let index = 0; index < this.waiting.length && this.total < this.perProcess;) {
      const waiter = this.waiting[index]!;
      if (!this.fits(waiter.accountId)) {
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      this.take(waiter.accountId);
      waiter.grant();
    }
  }
}
