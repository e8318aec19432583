import { parentPort, workerData } from 'node:worker_threads';
import { decodeOps, type EncodedOps } from './op-codec.ts';
import { WRITER_CHECKPOINT_PAGES, type ThreadMethod } from './sqlite-offthread.ts';
import { createSqliteStateStore } from './sqlite.ts';

// The SQLite state store's write thread (see sqlite-offthread.ts): a connection of its own on
// the same file, applying each batch through the store's own write(), so the semantics are the
// store's. The main connection purges expired keys; this one never does.
const { path } = workerData as { path: string };
const store = createSqliteStateStore({
  path,
  purgeIntervalMs: 2 ** 31 - 1,
  walAutocheckpointPages: WRITER_CHECKPOINT_PAGES,
});

type Job =
  | { id: number; op: 'write'; ops: EncodedOps }
  | { id: number; op: 'claimDue'; key: string; now: number; leaseMs: number; limit: number }
  | { id: number; op: 'call'; method: ThreadMethod; args: unknown[] };

const run = (job: Job): Promise<unknown> => {
  if (job.op === 'write') return store.write(decodeOps(job.ops));
  if (job.op === 'claimDue') return store.claimDue(job.key, job.now, job.leaseMs, job.limit);
  const method = store[job.method] as (...args: unknown[]) => Promise<unknown>;
  return method(...job.args);
};

parentPort?.on('message', (job: Job) => {
  run(job).then(
    (value) => parentPort!.postMessage({ id: job.id, ok: true, value }),
    (error: unknown) => {
      const failure = error as { name?: string; code?: string; message?: string; details?: unknown };
      parentPort!.postMessage({
        id: job.id,
        ok: false,
        error: {
          code: failure.code,
          message: failure.message ?? String(error),
          details: failure.details,
        },
      });
    },
  );
});
