import { parentPort, workerData } from 'node:worker_threads';
import type { WriteOp } from './port.ts';
import { createSqliteStateStore } from './sqlite.ts';

// The SQLite state store's write thread (see sqlite-offthread.ts): a connection of its own on
// the same file, applying each batch through the store's own write(), so the semantics are the
// store's. The main connection purges expired keys; this one never does.
const { path } = workerData as { path: string };
const store = createSqliteStateStore({ path, purgeIntervalMs: 2 ** 31 - 1 });

parentPort?.on('message', (job: { id: number; ops: WriteOp[] }) => {
  store.write(job.ops).then(
    () => parentPort!.postMessage({ id: job.id, ok: true }),
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
