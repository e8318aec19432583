/**
 * Helpers of the ingest bench: CPU time of the processes under test (so a figure means something
 * on a shared machine, where rates move with the neighbours) and the "how cost grows" table
 * (ingestion rate against ingestor processes × topic partitions).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { printTable } from '../support/report.ts';
import { ratio } from '../support/stats.ts';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a process and all its threads, in seconds; 0 when it is gone or not Linux. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Sums the CPU time the given processes spend between start() and stop(). */
export function cpuMeter(pids: readonly number[]) {
  const before = pids.map(cpuSeconds);
  return {
    /** CPU seconds per process since the meter started (read before the processes exit). */
    read: () => pids.map((pid, i) => Math.max(0, cpuSeconds(pid) - before[i]!)),
  };
}

/** When a figure was taken and how busy the machine was then. */
export function moment() {
  return {
    at: new Date().toISOString().slice(0, 19) + 'Z',
    load: loadavg().map((value) => Math.round(value * 10) / 10),
  };
}

export interface GridCell {
  partitions: string;
  ingestors: number;
  endToEndRate: number;
  lagP99: number;
  cpuUsPerResult?: number;
  load: number[];
}

/** Rows: partition counts; columns: ingestor counts; each cell rate (ratio to the ceiling), lag p99. */
export function printGrowthTable(title: string, cells: readonly GridCell[], ceilingRate: number | undefined): void {
  const partitions = [...new Set(cells.map((cell) => cell.partitions))];
  const ingestors = [...new Set(cells.map((cell) => cell.ingestors))].sort((a, b) => a - b);
  const rows = partitions.map((p) => [
    p || 'default',
    ...ingestors.map((n) => {
      const cell = cells.find((c) => c.partitions === p && c.ingestors === n);
      if (!cell) return '';
      const share = ceilingRate ? ` (${ratio(cell.endToEndRate, ceilingRate)})` : '';
      const cpu = cell.cpuUsPerResult === undefined ? '' : `, ${cell.cpuUsPerResult} µs CPU`;
      return `${cell.endToEndRate}/s${share}, lag p99 ${(cell.lagP99 / 1000).toFixed(1)} s${cpu}, load ${cell.load[0]}`;
    }),
  ]);
  printTable(title, ['partitions', ...ingestors.map((n) => `${n} ingestor${n > 1 ? 's' : ''}`)], rows);
}
