/**
 * The round loop of the artifact benches: each mode runs `runs` runs, `concurrency` at a time, in
 * rounds whose order alternates (A B C D, then D C B A), so load on this shared machine drifts over
 * all modes alike. It also counts CPU per run of this process and its descendants (Chromium and its
 * renderers), which moves far less with the neighbours than the rate does; processes that leave the
 * tree (a sandbox's PID namespace reparents them) are not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface RoundMode {
  name: string;
}

export interface ModeFigures {
  /** Runs per minute, one per round. */
  perMinute: number[];
  /** CPU ms per run (this process and its descendants), one per round. */
  cpuMsPerRun: number[];
  /** Bytes kept per run, last round. */
  bytesPerRun: number;
}

export interface RoundsOptions<M extends RoundMode> {
  modes: readonly M[];
  runs: number;
  rounds: number;
  concurrency: number;
  /** One run of the mode; answers the bytes it kept. */
  oneRun: (mode: M) => Promise<number>;
}

const CLOCK_TICKS_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process, plus what its reaped children used (cutime + cstime), in ms. */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * CLOCK_TICKS_MS;
  } catch {
    return 0; // exited meanwhile
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * CPU ms of this process and every live descendant; a descendant that exited counts through its
 * parent's cutime once reaped (Chromium's zygote reaps its renderers), this process's through ours.
 */
export function treeCpuMs(): number {
  const self = process.cpuUsage();
  let total = (self.user + self.system) / 1000;
  const queue = childrenOf(process.pid);
  // Our own reaped children: cutime + cstime of this process.
  const own = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  total += (Number(own[13]) + Number(own[14])) * CLOCK_TICKS_MS;
  for (let i = 0; i < queue.length; i++) {
    total += processCpuMs(queue[i]!);
    queue.push(...childrenOf(queue[i]!));
  }
  return total;
}

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function measureRounds<M extends RoundMode>(options: RoundsOptions<M>): Promise<Map<string, ModeFigures>> {
  const { modes, runs, rounds, concurrency, oneRun } = options;
  const figures = new Map<string, ModeFigures>(
    modes.map((mode) => [mode.name, { perMinute: [], cpuMsPerRun: [], bytesPerRun: 0 }]),
  );
  const measure = async (mode: M) => {
    let next = 0;
    let bytes = 0;
    const cpuBefore = treeCpuMs();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < runs) {
          next += 1;
          bytes += await oneRun(mode);
        }
      }),
    );
    const entry = figures.get(mode.name)!;
    entry.perMinute.push((runs * 60_000) / (performance.now() - started));
    entry.cpuMsPerRun.push((treeCpuMs() - cpuBefore) / runs);
    entry.bytesPerRun = bytes / runs;
  };
  for (const mode of modes) await oneRun(mode); // warm-up: the browser, the page, the store
  for (let r = 0; r < rounds; r++) {
    for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) await measure(mode);
  }
  return figures;
}

/**
 * on ÷ off: the ratio of the medians of the rounds' rates, and the median of each round's own ratio
 * (the two modes of a round ran minutes apart at most, so this one is less moved by drifting load).
 */
export function onOffRatios(figures: Map<string, ModeFigures>, on: string, off: string) {
  const a = figures.get(on)!;
  const b = figures.get(off)!;
  return {
    rate: median(a.perMinute) / median(b.perMinute),
    perRound: median(a.perMinute.map((x, i) => x / b.perMinute[i]!)),
    cpu: median(b.cpuMsPerRun) / median(a.cpuMsPerRun),
  };
}
