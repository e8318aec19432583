import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InternalError, UnavailableError, ValidationError } from '#core';
import { encodeOps } from './op-codec.ts';
import type { ScoredMember, WriteOp } from './port.ts';

/**
 * Writes to a SQLite state-store file from a worker thread with a connection of its own, so a
 * large group-committed batch (SQLite's writes are synchronous) no longer blocks the event loop
 * and runs on another core. It resolves once the batch is committed, with the store's own
 * durability (WAL, synchronous=NORMAL); reads on the main connection see it from then on.
 */
export interface OffThreadWriter {
  write(ops: WriteOp[]): Promise<void>;
  /**
   * claimDue on the thread too: it takes the write lock, and on the main connection it would
   * wait for the thread's batch in SQLite's busy handler, which sleeps and so stops the event loop.
   */
  claimDue(key: string, now: number, leaseMs: number, limit: number): Promise<ScoredMember[]>;
  /** Any of the store's write methods on the thread, with the arguments the caller gave (already checked). */
  call(method: ThreadMethod, args: unknown[]): Promise<unknown>;
  /** Waits for the batches in flight, then stops the thread. */
  close(): Promise<void>;
}

/**
 * WAL pages after which the write thread's commits checkpoint (SQLite's default is 1,000). Group
 * commits of a few hundred delivery records touch a page or two each at random (their ids are
 * hashes): checkpointing less often copies a page that several commits changed once, which took
 * a tenth off the thread's CPU per delivery (webhooks bench).
 */
export const WRITER_CHECKPOINT_PAGES = 4000;

/** The store's methods that take the write lock: once the thread runs, they all go through it. */
export type ThreadMethod =
  'write' | 'set' | 'setIfAbsent' | 'del' | 'incr' | 'claimDue' | 'claimDueFair' | 'claimDueRuns' | 'deletePrefix';

type Reply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { code?: string; message: string; details?: Record<string, unknown> } };

const workerUrl = new URL('./sqlite-write-worker.ts', import.meta.url);

// Set by the compiled build (scripts/build-server.mjs): the worker is a sibling bundle there.
const distDir = (globalThis as { __vigilDist?: string }).__vigilDist;

function spawn(path: string): Worker {
  if (distDir) return new Worker(new URL('sqlite-write-worker.js', distDir), { workerData: { path } });
  // As the template sandbox does: the thread loads the TypeScript sources through tsx's loader.
  const tsxApi = pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  );
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi.href)}; register(); await import(${JSON.stringify(workerUrl.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData: { path } });
}

function rebuild(error: Extract<Reply, { ok: false }>['error']): Error {
  const options = { details: error.details };
  if (error.code === 'VALIDATION_FAILED') return new ValidationError(error.message, options);
  if (error.code === 'DEPENDENCY_UNAVAILABLE') return new UnavailableError(error.message, options);
  return new InternalError(error.message, options);
}

export function createOffThreadWriter(path: string): OffThreadWriter {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  const failAll = (error: Error) => {
    for (const job of pending.values()) job.reject(error);
    pending.clear();
    worker = undefined;
  };

  const start = (): Worker => {
    const thread = spawn(path);
    thread.on('message', (reply: Reply) => {
      const job = pending.get(reply.id);
      if (!job) return;
      pending.delete(reply.id);
      if (reply.ok) job.resolve(reply.value);
      else job.reject(rebuild(reply.error));
      if (pending.size === 0) thread.unref();
    });
    // A batch whose thread died may or may not be committed: the caller treats it as failed
    // (a record is rewritten, a delivery attempted again with the same id). The next write starts a new thread.
    thread.on('error', (error) => {
      if (worker === thread) failAll(new UnavailableError(`the state store's write thread failed: ${error.message}`));
    });
    thread.on('exit', (code) => {
      if (worker === thread) failAll(new UnavailableError(`the state store's write thread exited (${code})`));
    });
    return thread;
  };

  const post = (job: Record<string, unknown>): Promise<unknown> => {
    worker ??= start();
    const id = nextId++;
    const thread = worker;
    return new Promise<unknown>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      // Referenced while a job is in flight, so the process waits for its commit.
      thread.ref();
      thread.postMessage({ ...job, id });
    });
  };

  return {
    async write(ops) {
      if (ops.length === 0) return;
      await post({ op: 'write', ops: encodeOps(ops) });
    },
    async claimDue(key, now, leaseMs, limit) {
      return (await post({ op: 'claimDue', key, now, leaseMs, limit })) as ScoredMember[];
    },
    call: (method, args) => post({ op: 'call', method, args }),
    async close() {
      const thread = worker;
      if (!thread) return;
      await Promise.allSettled(
        [...pending.values()].map((job) => new Promise<void>((done) => Object.assign(job, wrap(job, done)))),
      );
      worker = undefined;
      await thread.terminate();
    },
  };
}

/** The job's callbacks, also calling done when it settles. */
function wrap(job: { resolve: (value: unknown) => void; reject: (error: Error) => void }, done: () => void) {
  const { resolve, reject } = job;
  return {
    resolve: (value: unknown) => {
      resolve(value);
      done();
    },
    reject: (error: Error) => {
      reject(error);
      done();
    },
  };
}
