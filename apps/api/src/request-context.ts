import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';

/**
 * A request that carries an Idempotency-Key runs inside a scope seeded by that key (and its
 * account and principal). Inside it, new ids and command ids are derived from the seed rather
 * than drawn at random, so a retry after a crash re-runs the same commands on the same streams:
 * a command that was already committed is recognised by its command id and its recorded outcome
 * is answered, instead of being decided a second time.
 */
interface RequestScope {
  seed: string;
  counters: Map<string, number>;
}

const NAMESPACE = '6f1d3c0e-4c6b-5a57-9b1e-0c2f4e8a7d31';
const storage = new AsyncLocalStorage<RequestScope>();

export function runWithSeed<T>(seed: string, work: () => T): T {
  return storage.run({ seed, counters: new Map() }, work);
}

function next(scope: RequestScope, name: string): number {
  const n = scope.counters.get(name) ?? 0;
  scope.counters.set(name, n + 1);
  return n;
}

/** A new aggregate id: random, or derived from the request's seed so a retried request mints the same one. */
export function newId(): string {
  const scope = storage.getStore();
  return scope ? uuidv5(`${scope.seed}\nid\n${next(scope, 'id')}`, NAMESPACE) : randomUUID();
}

/**
 * The command id for the nth command of this type on this stream in this request: derived from
 * the seed, or null outside an idempotent request (the runner then draws a random one).
 */
export function derivedCommandId(stream: string, commandType: string): string | null {
  const scope = storage.getStore();
  if (!scope) return null;
  const n = next(scope, `command\n${stream}\n${commandType}`);
  return uuidv5(`${scope.seed}\ncommand\n${stream}\n${commandType}\n${n}`, NAMESPACE);
}

/**
 * A dry run (`?dryRun=true` on a write route): the handler runs in full, every lookup, validation
 * and decision included, but the command runner appends nothing. Kept apart from the seed scope:
 * a dry run takes no Idempotency-Key slot.
 */
const dryRuns = new AsyncLocalStorage<true>();

export function runDry<T>(work: () => T): T {
  return dryRuns.run(true, work);
}

export function isDryRun(): boolean {
  return dryRuns.getStore() === true;
}
