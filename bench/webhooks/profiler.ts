/**
 * `--cpu-prof` and `--heap-prof` for the webhooks bench: the dispatcher runs in the bench's own
 * process, beside the standalone API, so a whole-process profile would mix in setup and the cost
 * rows. These cover only the dispatcher runs (the inspector's profilers, started and stopped
 * around them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export interface RunProfiler {
  start(): Promise<void>;
  /** Stops and writes the profile; returns its path. */
  stop(label: string): Promise<string>;
}

export function createRunProfiler(dir: string, kind: 'cpu' | 'heap' = 'cpu'): RunProfiler {
  const session = new Session();
  session.connect();
  if (kind === 'heap') return allocationProfiler(session, dir);
  return {
    async start() {
      await session.post('Profiler.enable');
      // 1 ms, as node --cpu-prof samples by default.
      await session.post('Profiler.setSamplingInterval', { interval: 1000 });
      await session.post('Profiler.start');
    },
    async stop(label) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `webhooks-${label}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

/**
 * Where the run allocates: V8's sampling heap profiler, keeping the samples of objects that a
 * scavenge or mark-compact has since freed (without that it shows only what is still alive at
 * the end, not the churn the young generation pays for). One sample per 16 KiB allocated on average.
 */
function allocationProfiler(session: Session, dir: string): RunProfiler {
  return {
    async start() {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 16_384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    },
    async stop(label) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      await session.post('HeapProfiler.disable');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `webhooks-${label}-${new Date().toISOString().replace(/[:.]/g, '-')}.heapprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
