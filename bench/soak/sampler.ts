import { readFile } from 'node:fs/promises';
import type { AppProcess } from './deployment.ts';

/** One look at one process. */
export interface Sample {
  /** Seconds since the load started. */
  t: number;
  app: string;
  rssMiB: number | null;
  /** Event-loop delay p99 over the interval since the previous sample, from the app's /metrics. */
  loopP99Ms: number | null;
  loopMaxMs: number | null;
  heapUsedMiB: number | null;
}

/** VmRSS of a process from /proc, in MiB; null once it is gone. */
export async function rssMiB(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/** The value of an unlabelled sample in Prometheus text format, or null when absent. */
export function promValue(text: string, name: string): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const [metric, value] = line.trim().split(/\s+/);
    if (metric === name || metric === `${name}{}`) {
      const number = Number(value);
      return Number.isFinite(number) ? number : null;
    }
  }
  return null;
}

const ms = (seconds: number | null) => (seconds === null ? null : Math.round(seconds * 1000 * 100) / 100);
const mib = (bytes: number | null) => (bytes === null ? null : Math.round((bytes / 1024 ** 2) * 10) / 10);

/**
 * prom-client's default metrics read a monitorEventLoopDelay histogram and reset it on every
 * scrape, so with the soak as the only scraper each sample covers the interval since the last one.
 */
export async function sample(app: AppProcess, t: number): Promise<Sample> {
  const rss = await rssMiB(app.process.pid);
  let text = '';
  try {
    const response = await fetch(`${app.url}/metrics`, { signal: AbortSignal.timeout(10_000) });
    if (response.ok) text = await response.text();
  } catch {
    // recorded as null: a process that cannot answer for 10 s is itself a finding
  }
  return {
    t: Math.round(t),
    app: app.name,
    rssMiB: rss,
    loopP99Ms: ms(promValue(text, 'vigil_nodejs_eventloop_lag_p99_seconds')),
    loopMaxMs: ms(promValue(text, 'vigil_nodejs_eventloop_lag_max_seconds')),
    heapUsedMiB: mib(promValue(text, 'vigil_nodejs_heap_size_used_bytes')),
  };
}
