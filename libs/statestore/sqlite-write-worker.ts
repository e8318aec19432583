import { parentPort, workerData } from 'node:worker_threads';
import type { WriteOp } from './port.ts';
import { createSqliteStateStore } from './sqlite.ts';

// The SQLite state store's write thread (see sqlite-offthread.ts): a connection of its own on
// the same file, applying each batch through the store's own write(), so the semantics are the
// store's. The main connection purges expired keys; this one never does.
const { path } = workerData as { path: string };
// Group commits of a few hundred delivery records touch a page or two each at random (their ids
// are hashes): checkpointing every 4,000 pages instead of SQLite's 1,000 copies a page changed by
// several commits once, which took a tenth off this thread's CPU per delivery (webhooks bench).
// The main connection keeps the default; a checkpoint it runs after a commit of its own may now
// copy up to 4,000 pages (16 MB) instead of about 1,000.
const store = createSqliteStateStore({ path, purgeIntervalMs: 2 ** 31 - 1, walAutocheckpointPages: 4000 });

type Job =
  | { id: number; op: 'write'; ops: WriteOp[] }
  | { id: number; op: 'claimDue'; key: string; now: number; leaseMs: number; limit: number };

const run = (job: Job): Promise<unknown> =>
  job.op === 'write' ? store.write(job.ops) : store.claimDue(job.key, job.now, job.leaseMs, job.limit);

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
