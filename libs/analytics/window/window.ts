import type { AnalyticsStore } from '../port.ts';
import type { AggregatePlan, AggregateRow } from '../reader/build.ts';
import type { AnalyticsQuery } from '../reader/params.ts';
import { aggregateRows, answersInMemory } from './aggregate.ts';
import { checkRowsSql, toCheckRows, type CheckRows } from './rows.ts';
import type { ChangeTokens, CheckKey, KnownToken } from './tokens.ts';

/**
 * Recent rows of the checks this API replica is asked about, so a check read again before its
 * results change is answered without the engine (issue 26: one statement on ClickHouse costs more
 * than PostgreSQL's whole answer). A read serves from memory only when the check's change token
 * (tokens.ts) equals the one read before its rows were loaded, and the rows are younger than
 * maxAgeMs; anything else goes to the engine, as without the window, and once the engine has
 * answered a load starts in the background for the next read. Answers are the engine's, exactly (aggregate.ts).
 */
export interface CheckWindow {
  /**
   * The plan's rows from memory, or undefined: then ask the engine, and call missed after.
   * `known`: the check's token as read since the request came in (tokenKey), instead of reading it here.
   */
  rows(query: AnalyticsQuery, plan: AggregatePlan, known?: KnownToken): Promise<AggregateRow[] | undefined>;
  /** The state-store key of a check's token, when a caller can read it with its own keys. */
  tokenKey(key: CheckKey): string | undefined;
  /**
   * Loads the check in the background if rows missed it and it may be held: called once the
   * engine has answered, so the load never competes with the answer it follows.
   */
  missed(query: AnalyticsQuery, plan: AggregatePlan): void;
  /** Resolves when no load is running: for tests and benches. */
  settled(): Promise<void>;
  stats(): WindowStats;
}

export interface WindowStats {
  hits: number;
  misses: number;
  loads: number;
  checks: number;
  rows: number;
}

export interface CheckWindowOptions {
  tokens: ChangeTokens;
  /** Rows held across all checks; the least recently read checks go first. */
  maxRows: number;
  /** A check with more runs than this in spanMs is left to the engine and its rollups. */
  maxCheckRows?: number;
  /** How far back a check's rows are held (default 31 days: last30Days and this month fit). */
  spanMs?: number;
  /** Rows older than this are loaded again even when the token says nothing changed (default 30 s). */
  maxAgeMs?: number;
  /** Loads at once; more wait (default 2). */
  concurrency?: number;
  now?: () => number;
  log?: { warn(details: object, message: string): void };
}

interface Entry {
  token: string;
  loadedAt: number;
  fromMs: number;
  rows: CheckRows;
}

const DAY_MS = 86_400_000;

export function createCheckWindow(store: AnalyticsStore, options: CheckWindowOptions): CheckWindow {
  const spanMs = options.spanMs ?? 31 * DAY_MS;
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const maxCheckRows = options.maxCheckRows ?? 50_000;
  const concurrency = options.concurrency ?? 2;
  const now = options.now ?? Date.now;
  // Map order is recency: a read moves its check to the end; eviction takes from the front.
  const entries = new Map<string, Entry>();
  // Checks too busy to hold, until this time: their loads would be wasted.
  const tooBig = new Map<string, number>();
  const loading = new Map<string, Promise<void>>();
  const queue: (() => void)[] = [];
  let running = 0;
  let held = 0;
  const stats = { hits: 0, misses: 0, loads: 0 };

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    held -= entry.rows.ms.length;
  };

  const load = async (key: string, query: AnalyticsQuery): Promise<void> => {
    const scope = { accountId: query.accountId, checkId: query.checkId, checkType: query.checkType };
    // The token first: a write landing during the load renews it, and the next read reloads.
    const [token] = await options.tokens.read([scope]);
    if (token === null || token === undefined) return;
    const fromMs = now() - spanMs;
    const raw = await store.query(checkRowsSql(store, scope, fromMs, maxCheckRows + 1));
    stats.loads++;
    if (raw.length > maxCheckRows) {
      // Forgotten all at once past a bound, as the reader's rates: they only save loads.
      if (tooBig.size >= 10_000) tooBig.clear();
      tooBig.set(key, now() + 10 * maxAgeMs);
      return;
    }
    drop(key);
    const entry = { token, loadedAt: now(), fromMs, rows: toCheckRows(raw, query.checkType) };
    entries.set(key, entry);
    held += raw.length;
    for (const [old] of entries) {
      if (held <= options.maxRows) break;
      drop(old);
    }
  };

  const schedule = (key: string, query: AnalyticsQuery) => {
    if (loading.has(key) || (tooBig.get(key) ?? 0) > now()) return;
    const job = new Promise<void>((resolve) => {
      const start = () => {
        running++;
        load(key, query)
          .catch((error: unknown) =>
            options.log?.warn({ err: error, checkId: query.checkId }, 'check window load failed'),
          )
          .finally(() => {
            running--;
            loading.delete(key);
            queue.shift()?.();
            resolve();
          });
      };
      if (running < concurrency) start();
      else queue.push(start);
    });
    loading.set(key, job);
  };

  return {
    async rows(query, plan, known) {
      if (!answersInMemory(query, plan)) return undefined;
      const key = `${query.accountId}\u0000${query.checkId}`;
      const entry = entries.get(key);
      // Not held, or asked about runs older than those held: the engine's, and the entry stays.
      if (entry === undefined || query.window.from.getTime() < entry.fromMs) {
        stats.misses++;
        return undefined;
      }
      // A token read at the start of the request is as good as one read now: rows held under it
      // include every write whose renewal came before the request.
      const token = async () =>
        known !== undefined ? known.token : (await options.tokens.read([query]).catch(() => [null]))[0];
      const fresh = now() - entry.loadedAt <= maxAgeMs && (await token()) === entry.token;
      if (!fresh) {
        stats.misses++;
        // Only the entry this read judged: a load may have replaced it meanwhile.
        if (entries.get(key) === entry) drop(key);
        return undefined;
      }
      stats.hits++;
      entries.delete(key);
      entries.set(key, entry);
      return aggregateRows(entry.rows, query, plan, store.dialect);
    },
    missed(query, plan) {
      // A window reaching further back than the span is never held: no load would serve it.
      if (!answersInMemory(query, plan) || query.window.from.getTime() < now() - spanMs) return;
      const key = `${query.accountId}\u0000${query.checkId}`;
      if (!entries.has(key)) schedule(key, query);
    },
    tokenKey: (key) => options.tokens.keyOf?.(key),
    async settled() {
      while (loading.size > 0) await Promise.all(loading.values());
    },
    stats: () => ({ ...stats, checks: entries.size, rows: held }),
  };
}
