import type { WriteOp } from '#statestore';

/**
 * Attempt records per group-commit write, and how long the first one waits for company. A
 * record's cost falls steeply with the batch (SQLite, 20k records off the event loop: about 47 µs
 * of CPU each in batches of 20, 34 in batches of 100, 23 in batches of 500: each commit rewrites
 * every b-tree page it touched, and the random delivery ids touch a page or two each), and no
 * slot waits for it (fresh and retried attempts free theirs when the response is in; only the
 * alert batch's acknowledgement waits, and it flushes at once), so the window is long enough to
 * gather a few hundred at several thousand deliveries a second.
 */
export const GROUP_MAX = 500;
const GROUP_WINDOW_MS = 25;
/**
 * After a write, what arrived meanwhile is written at once only if it is this many already;
 * otherwise it waits out a window of its own. Without this the loop wrote whatever came in
 * during the last write, so batches shrank to the rate times one write's time (about 100).
 */
const GROUP_FULL = 250;

/** One write in the making: its records' ops in order, and the promise all of them wait on. */
interface Group {
  ops: WriteOp[];
  records: number;
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function openGroup(): Group {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Every record's caller awaits (or collects) this promise; one that has not yet is not an
  // unhandled rejection meanwhile.
  done.catch(() => undefined);
  return { ops: [], records: 0, done, resolve, reject };
}

/**
 * Group commit: records that come in within a short window (or while a write is in flight)
 * share one write, so a burst of deliveries costs a few transactions, not one each. The window
 * matters on SQLite, whose writes are synchronous: without it each attempt that finishes in its
 * own turn of the event loop would get a transaction of its own. Each caller still waits until
 * its own record is durable: every record of a group gets the group's one promise (a promise,
 * its resolvers and an entry per record were a good part of an attempt's allocation), settled
 * when that write is; groups are written in order, at most GROUP_MAX records each.
 */
export class GroupCommit {
  /** Full groups waiting for the write in flight, oldest first; then the open group. */
  private readonly full: Group[] = [];
  private open = openGroup();
  private waiting = 0;
  private flushing = false;
  /** Someone waits for what is pending (a test send, or an alert batch whose attempts are all made). */
  private hurry = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly write: (ops: WriteOp[]) => Promise<void>) {}

  /** Adds one record's ops (written together, in order); resolves once its group is written. */
  add(ops: readonly WriteOp[], urgent = false): Promise<void> {
    const group = this.open;
    for (const op of ops) group.ops.push(op);
    group.records++;
    this.waiting++;
    if (group.records >= GROUP_MAX) {
      this.full.push(group);
      this.open = openGroup();
    }
    if (urgent) this.hurry = true;
    // A write in flight takes what is pending when it is done (or arms the window for it).
    if (this.flushing) return group.done;
    if (this.waiting >= GROUP_MAX) void this.flush();
    else if (urgent) {
      // Still joins whatever is waiting, and what arrives in this turn of the event loop.
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.flush(), 0);
    } else this.timer ??= setTimeout(() => void this.flush(), GROUP_WINDOW_MS);
    return group.done;
  }

  /** Writes what waits for the window now: the caller has nothing more to add (its batch is done). */
  flushPending(): void {
    if (this.waiting === 0) return;
    this.hurry = true;
    if (!this.flushing) void this.flush();
  }

  private async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = true;
    let first = true;
    while (this.waiting > 0) {
      // A few records that came in during the last write wait for company, unless someone waits for them.
      if (!first && !this.hurry && this.waiting < GROUP_FULL) {
        this.timer = setTimeout(() => void this.flush(), GROUP_WINDOW_MS);
        break;
      }
      first = false;
      let group = this.full.shift();
      if (!group) {
        group = this.open;
        this.open = openGroup();
      }
      this.waiting -= group.records;
      if (this.waiting === 0) this.hurry = false;
      try {
        await this.write(group.ops);
        group.resolve();
      } catch (error) {
        group.reject(error);
      }
    }
    this.flushing = false;
  }
}
