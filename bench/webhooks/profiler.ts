/**
 * `--cpu-prof` for the webhooks bench: the dispatcher runs in the bench's own process, beside the
 * standalone API, so a whole-process profile would mix in setup and the cost rows. This one
 * covers only the dispatcher runs (the inspector's profiler, started and stopped around them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export interface RunProfiler {
  start(): Promise<void>;
  /** Stops and writes the profile; returns its path. */
  stop(label: string): Promise<string>;
}

export function createRunProfiler(dir: string): RunProfiler {
  const session = new Session();
  session.connect();
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
