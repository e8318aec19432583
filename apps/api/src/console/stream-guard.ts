import type { Logger } from '#core';
import { roleAtLeast, type Role } from '#domain';
import type { ReadModels } from '#readmodels';
import type { Access } from '../access.ts';

/** The signal that revocations already travel on: every read-model change, on every replica. */
export interface ChangeSignal {
  subscribe(listener: () => void): () => void;
}

export interface StreamGuardOptions {
  readModels: ReadModels;
  changes: ChangeSignal;
  log: Logger;
  /**
   * A re-check with no change announced, for a change whose announcement was lost (Redis down at
   * publish time); announced ones are acted on at once.
   */
  recheckMs?: number;
  /**
   * Least time between two sweeps: a stream of writes anywhere becomes one sweep per gap, not one
   * per write, at the price of closing up to this much later.
   */
  minGapMs?: number;
}

interface Watched {
  access: Access;
  minRole: Role;
  closers: Set<() => void>;
}

/**
 * Keeps long-lived responses (event streams) honest after they were authorised: on every
 * read-model change it re-checks each distinct principal with an open stream, and closes its
 * streams once its key is revoked, its user removed or demoted below the route's role, or its
 * account gone. A check that cannot be read closes too: a stream must not outlive what it cannot
 * confirm, and its client reconnects through the normal authentication.
 */
export class StreamGuard {
  private readonly watched = new Map<string, Watched>();
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;
  private running = false;
  private again = false;

  constructor(private readonly options: StreamGuardOptions) {
    this.unsubscribe = options.changes.subscribe(() => void this.sweep());
    this.timer = setInterval(() => void this.sweep(), options.recheckMs ?? 30_000);
    this.timer.unref();
  }

  /** Watches one stream; `close` ends it. Returns the function to call when it ends on its own. */
  watch(access: Access, minRole: Role, close: () => void): () => void {
    const scope = scopeOf(access, minRole);
    let entry = this.watched.get(scope);
    if (!entry) {
      entry = { access, minRole, closers: new Set() };
      this.watched.set(scope, entry);
    }
    const watched = entry;
    watched.closers.add(close);
    // A change announced while this stream was being authorised would otherwise go unseen.
    void this.recheck(scope, watched);
    return () => {
      watched.closers.delete(close);
      if (watched.closers.size === 0 && this.watched.get(scope) === watched) this.watched.delete(scope);
    };
  }

  /** Open streams watched, for tests. */
  get size(): number {
    let count = 0;
    for (const entry of this.watched.values()) count += entry.closers.size;
    return count;
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.timer);
  }

  /** One sweep at a time; a change during a sweep runs another right after, so none is missed. */
  private async sweep(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      for (;;) {
        this.again = false;
        await Promise.all([...this.watched.entries()].map(([scope, entry]) => this.recheck(scope, entry)));
        if (!this.again) break;
        await new Promise((resolve) => setTimeout(resolve, this.options.minGapMs ?? 100));
      }
    } finally {
      this.running = false;
    }
  }

  private async recheck(scope: string, entry: Watched): Promise<void> {
    let allowed: boolean;
    try {
      allowed = await stillAllowed(this.options.readModels, entry.access, entry.minRole);
    } catch (error) {
      this.options.log.warn({ err: error, scope }, 'stream access could not be re-checked; closing its streams');
      allowed = false;
    }
    if (allowed) return;
    if (this.watched.get(scope) === entry) this.watched.delete(scope);
    this.options.log.info({ scope, streams: entry.closers.size }, 'access revoked; closing its event streams');
    for (const close of [...entry.closers]) close();
  }
}

function scopeOf(access: Access, minRole: Role): string {
  const principal = access.principal;
  const key = principal.kind === 'user' || principal.kind === 'service' ? principal.keyId : principal.kind;
  return `${access.accountId}\n${key}\n${minRole}`;
}

/** Whether the principal would still be let in now, by the rules the auth hook applies. */
export async function stillAllowed(readModels: ReadModels, access: Access, minRole: Role): Promise<boolean> {
  const principal = access.principal;
  if (principal.kind !== 'user' && principal.kind !== 'service') return false;
  const [key, account] = await Promise.all([readModels.apiKey(principal.keyId), readModels.account(access.accountId)]);
  if (key?.status !== 'active' || !account) return false;
  if (principal.kind === 'service') {
    return (
      key.type === 'service' &&
      key.accountId === access.accountId &&
      key.role !== null &&
      roleAtLeast(key.role, minRole)
    );
  }
  if (key.type !== 'user' || key.userId !== principal.userId) return false;
  const user = await readModels.user(principal.userId);
  const role = user?.memberships[access.accountId] as Role | undefined;
  return role !== undefined && roleAtLeast(role, minRole);
}
