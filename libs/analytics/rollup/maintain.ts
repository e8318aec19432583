import { sqlDateTime, sqlNumber, sqlString, type SqlDialect } from '../sql.ts';
import { DAILY_TABLE, NO_LOCATION_TABLE, rollDays } from './daily.ts';
import { HOUR_MS, ROLLUP_TABLE, WATERMARK_TABLE, rollSelectSql } from './sql.ts';
import { watermarkRowInserts, watermarkRowMerges } from './watermark-row.ts';

/** What the maintainer needs from an adapter: its dialect, the deduplicated raw source and two ways to run SQL. */
export interface RollupExecutor {
  dialect: SqlDialect;
  source: string;
  run(sql: string): Promise<void>;
  rows<T>(sql: string): Promise<T[]>;
  /** Runs work so that readers see all of it or none (a transaction on DuckDB; ClickHouse has none). */
  atomic<T>(work: () => Promise<T>): Promise<T>;
}

/** A raw row as the maintainer needs it: which check and which hour it lands in. */
export interface RolledRow {
  account_id: string;
  check_id: string;
  started_ms: number;
}

export interface Watermarks {
  /** Hours before this are being rolled or rolled: an insert into them re-rolls its hour. */
  announced: number;
  /** Hours before this are rolled: readers take them from the rollups. */
  completed: number;
}

/**
 * A clock more than this far apart between two writers could let a late result slip between a
 * roll and its watermark; inserts within this long after the hour turned always check.
 */
const SKEW_MS = 60_000;
/** Late hours closer than this share one re-roll statement. */
const MAX_GAP_HOURS = 6;
/** Most (check, hour) cells an insert re-rolls itself; beyond, it rewinds the watermark. */
const MAX_LATE_CELLS = 2_000;
/** An advance rolls this much at a time (and marks it completed). */
const ROLL_STEP_MS = 24 * HOUR_MS;
/** After a failed roll, inserts wait this long before trying again. */
const ADVANCE_RETRY_MS = 5 * 60_000;

/**
 * Keeps the hourly rollups in step with the raw table. Guarantees:
 * - duplicates: every roll reads the deduplicated raw rows, so a redelivered result counts once;
 * - late results: an insert re-rolls each closed hour its rows land in (after the raw insert is
 *   acknowledged, against the `announced` watermark a roll sets before it reads the raw rows, so a
 *   result is either seen by the roll or re-rolled by its own insert);
 * - the roll of an hour is a pure function of the raw rows, so rolling again (or rebuild) is idempotent.
 */
export interface RollupMaintainer {
  /** Call after raw rows are stored: rolls hours that closed since the last roll and re-rolls late ones. */
  afterInsert(x: RollupExecutor, rows: readonly RolledRow[]): Promise<void>;
  /** Rolls every hour that closed since the last roll. */
  advance(x: RollupExecutor): Promise<Watermarks>;
  /** Drops every rollup and rolls every closed hour again from the raw rows. */
  rebuild(x: RollupExecutor): Promise<Watermarks>;
  watermarks(x: RollupExecutor): Promise<Watermarks>;
}

/**
 * The roll of the raw rows matching `where`. On ClickHouse every condition goes in PREWHERE: each
 * is on a sorting-key column, which every copy of a result shares, so FINAL merges only the rows
 * kept (a re-roll of one hour for 100 checks read 65 → 30 ms on 18.16).
 */
function rawRollSql(x: RollupExecutor, where: string): string {
  return x.dialect === 'clickhouse'
    ? rollSelectSql(x.dialect, x.source, '1', undefined, where)
    : rollSelectSql(x.dialect, x.source, where);
}

export function createRollupMaintainer(
  clock: () => number = Date.now,
  onError: (error: unknown, message: string) => void = () => undefined,
): RollupMaintainer {
  let knownCompleted = -1;
  let lastSet = 0;
  let retryAdvanceAt = 0;

  async function watermarks(x: RollupExecutor): Promise<Watermarks> {
    const latest = x.dialect === 'clickhouse' ? 'argMax(value_ms, set_ms)' : 'arg_max(value_ms, set_ms)';
    const rows = await x.rows<{ name: string; v: number }>(
      `SELECT name, ${latest} AS v FROM ${WATERMARK_TABLE} GROUP BY name`,
    );
    const value = (name: string) => Number(rows.find((row) => row.name === name)?.v ?? 0);
    return { announced: value('announced'), completed: value('completed') };
  }

  async function mark(x: RollupExecutor, name: 'announced' | 'completed', value: number): Promise<void> {
    lastSet = Math.max(clock(), lastSet + 1);
    // The rollup tables' own copy first (watermark-row.ts): a rewind that fails half-way fails
    // its insert, and a forward mark the tables already carry is one their rows were rolled for.
    if (name === 'completed' && x.dialect === 'clickhouse') {
      for (const sql of watermarkRowInserts(value, lastSet)) await x.run(sql);
      // Only for readers' speed: the row is right whichever parts hold it.
      for (const sql of watermarkRowMerges())
        await x.run(sql).catch((error: unknown) => onError(error, 'merging the watermark row failed'));
    }
    await x.run(
      `INSERT INTO ${WATERMARK_TABLE} (name, value_ms, set_ms) VALUES (${sqlString(name, x.dialect)}, ${sqlNumber(value)}, ${sqlNumber(lastSet)})`,
    );
  }

  /** Replaces the rollups of the hours in [from, to) for every check. */
  async function rollRange(x: RollupExecutor, from: number, to: number): Promise<void> {
    const where = `started_at >= ${sqlDateTime(new Date(from))} AND started_at < ${sqlDateTime(new Date(to))}`;
    if (x.dialect === 'duckdb')
      await x.run(
        `DELETE FROM ${ROLLUP_TABLE} WHERE epoch_ms(hour) >= ${sqlNumber(from)} AND epoch_ms(hour) < ${sqlNumber(to)}`,
      );
    await x.run(`INSERT INTO ${ROLLUP_TABLE} ${rawRollSql(x, where)}`);
    await rollDays(x, ROLLUP_TABLE, from, to);
  }

  /**
   * Replaces the rollups of the hours the rows land in, for their checks. Hours are taken in runs
   * (a gap of more than MAX_GAP_HOURS starts a new statement), each run for every check seen in
   * it: a time range and a set of ids the engines prune by, where one clause per check and hour
   * made ClickHouse 18.16 scan the table (a backfill of 500 checks took more than 30 s a batch).
   * Re-rolling an hour a check had no late rows in is harmless: a roll is a pure function of the raw rows.
   */
  async function reroll(x: RollupExecutor, rows: readonly RolledRow[]): Promise<void> {
    const byHour = new Map<number, { accounts: Set<string>; checks: Set<string> }>();
    for (const row of rows) {
      const hour = Math.floor(row.started_ms / HOUR_MS) * HOUR_MS;
      const entry = byHour.get(hour) ?? { accounts: new Set<string>(), checks: new Set<string>() };
      entry.accounts.add(row.account_id.toLowerCase());
      entry.checks.add(row.check_id.toLowerCase());
      byHour.set(hour, entry);
    }
    const hours = [...byHour.keys()].sort((a, b) => a - b);
    const spans: { from: number; to: number; accounts: Set<string>; checks: Set<string> }[] = [];
    for (const hour of hours) {
      const entry = byHour.get(hour)!;
      const last = spans.at(-1);
      if (last !== undefined && hour - last.to <= MAX_GAP_HOURS * HOUR_MS) {
        last.to = hour + HOUR_MS;
        entry.accounts.forEach((id) => last.accounts.add(id));
        entry.checks.forEach((id) => last.checks.add(id));
      } else
        spans.push({
          from: hour,
          to: hour + HOUR_MS,
          accounts: new Set(entry.accounts),
          checks: new Set(entry.checks),
        });
    }
    const list = (ids: Set<string>) => [...ids].map((id) => sqlString(id, x.dialect)).join(', ');
    for (const span of spans) {
      const ids = `account_id IN (${list(span.accounts)}) AND check_id IN (${list(span.checks)})`;
      const raw = `${ids} AND started_at >= ${sqlDateTime(new Date(span.from))} AND started_at < ${sqlDateTime(new Date(span.to))}`;
      await x.atomic(async () => {
        if (x.dialect === 'duckdb')
          await x.run(
            `DELETE FROM ${ROLLUP_TABLE} WHERE ${ids} AND epoch_ms(hour) >= ${sqlNumber(span.from)} AND epoch_ms(hour) < ${sqlNumber(span.to)}`,
          );
        await x.run(`INSERT INTO ${ROLLUP_TABLE} ${rawRollSql(x, raw)}`);
        await rollDays(x, ROLLUP_TABLE, span.from, span.to, span);
      });
    }
  }

  /** When the first raw row at or after `ms` started, or undefined when there is none. */
  async function firstRowFrom(x: RollupExecutor, ms: number): Promise<number | undefined> {
    // The count tells "no rows" apart: ClickHouse's min() of nothing is 0, not NULL, which sent
    // an advance over an empty table through every day since 1970.
    const first = await x.rows<{ m: number | null; n: number }>(
      `SELECT min(started_ms) AS m, count(*) AS n FROM ${x.source.replace(/\s+FINAL$/, '')} WHERE started_at >= ${sqlDateTime(new Date(ms))}`,
    );
    const row = first[0];
    return row !== undefined && Number(row.n) > 0 && row.m !== null ? Number(row.m) : undefined;
  }

  async function advance(x: RollupExecutor): Promise<Watermarks> {
    const closed = Math.floor(clock() / HOUR_MS) * HOUR_MS;
    const state = await watermarks(x);
    if (state.completed >= closed) {
      knownCompleted = state.completed;
      return state;
    }
    // Announce before reading raw rows: an insert that lands after this re-rolls its own hour.
    if (state.announced < closed) await mark(x, 'announced', closed);
    // A day at a time from the first raw row on: after a backfill one statement over a month took
    // longer than the client waits on ClickHouse 18.16, and each day rolled is usable at once.
    let from = state.completed;
    if (closed - from > ROLL_STEP_MS) {
      const earliest = (await firstRowFrom(x, from)) ?? closed;
      from = Math.max(from, Math.min(closed, Math.floor(earliest / ROLL_STEP_MS) * ROLL_STEP_MS));
    }
    let marked = state.completed;
    for (let start = from, end = from; ; start = end) {
      end = Math.min(closed, start + ROLL_STEP_MS);
      // Days with no raw rows after this one are rolled with it, in the same step: a day at a
      // time walked every empty day up to now (a roll after data months old, or tests' old data).
      if (end < closed) {
        const next = await firstRowFrom(x, end);
        end =
          next === undefined ? closed : Math.min(closed, Math.max(end, Math.floor(next / ROLL_STEP_MS) * ROLL_STEP_MS));
      }
      const stop = await x.atomic(async () => {
        // Someone rewound the watermark since this advance set it: leave their hours to the next roll.
        if (start !== from && (await watermarks(x)).completed !== marked) return true;
        // The first step also covers [completed, from): nothing raw is there, and it clears stale rollups.
        await rollRange(x, start === from ? state.completed : start, end);
        await mark(x, 'completed', end);
        return false;
      });
      if (stop) return watermarks(x);
      marked = end;
      knownCompleted = end;
      if (end >= closed) break;
    }
    return { announced: Math.max(state.announced, closed), completed: closed };
  }

  return {
    watermarks,
    advance,

    async afterInsert(x, rows) {
      if (rows.length === 0) return;
      const now = clock();
      const current = Math.floor(now / HOUR_MS) * HOUR_MS;
      let state: Watermarks | undefined;
      // Rolling closed hours is optional for correctness (readers take what is not rolled from the
      // raw rows), so a failed or slow roll must not fail the insert; it is retried a while later.
      if (knownCompleted < current && now >= retryAdvanceAt) {
        state = await advance(x).catch((error: unknown) => {
          retryAdvanceAt = now + ADVANCE_RETRY_MS;
          onError(error, 'rollup advance failed; readers use the raw rows past the last roll');
          return undefined;
        });
      }
      const maybeLate = now - current < SKEW_MS || rows.some((row) => row.started_ms < current);
      if (!maybeLate) return;
      state ??= await watermarks(x);
      const announced = state.announced;
      const late = rows.filter((row) => row.started_ms < announced);
      if (late.length === 0) return;
      // A loop, not Math.min(...rows): spreading 200,000 arguments overflows the stack.
      let first = Infinity;
      for (const row of late) if (row.started_ms < first) first = row.started_ms;
      const earliest = Math.floor(first / HOUR_MS) * HOUR_MS;
      const cells = new Set(late.map((row) => `${row.check_id}/${Math.floor(row.started_ms / HOUR_MS)}`));
      // A backfill (many late hours and checks) would re-roll for longer than an insert may take:
      // move the completed watermark back instead, so readers take those hours from the raw rows
      // (exact) until the next roll, or npm run analytics:rollup, rolls them again.
      if (cells.size <= MAX_LATE_CELLS) {
        try {
          await reroll(x, late);
          return;
        } catch (error) {
          onError(error, 'late re-roll failed; rewinding the rollup watermark');
        }
      }
      if (earliest < state.completed) {
        await mark(x, 'completed', earliest);
        knownCompleted = Math.min(knownCompleted, earliest);
        // A backfill comes in many batches: roll once it has had time to finish, not after each one.
        retryAdvanceAt = now + ADVANCE_RETRY_MS;
      }
    },

    async rebuild(x) {
      const closed = Math.floor(clock() / HOUR_MS) * HOUR_MS;
      // Readers go to the raw rows (exact, slower) until the new rollups are complete.
      await mark(x, 'completed', 0);
      await mark(x, 'announced', closed);
      await x.atomic(async () => {
        for (const table of [ROLLUP_TABLE, NO_LOCATION_TABLE, DAILY_TABLE]) {
          if (x.dialect === 'duckdb') await x.run(`DELETE FROM ${table}`);
          else {
            const parts = await x.rows<{ partition: string }>(
              `SELECT DISTINCT partition FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active`,
            );
            for (const { partition } of parts) {
              if (!/^\d+$/.test(partition)) throw new Error(`unexpected rollup partition ${partition}`);
              await x.run(`ALTER TABLE ${table} DROP PARTITION ${partition}`);
            }
          }
        }
        await rollRange(x, 0, closed);
        await mark(x, 'completed', closed);
      });
      knownCompleted = closed;
      return { announced: closed, completed: closed };
    },
  };
}
