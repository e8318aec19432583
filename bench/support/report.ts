import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import Table from 'cli-table3';

/** What the figures came from: they mean little without it. */
export function machine() {
  const cores = cpus();
  return {
    cpu: cores[0]?.model ?? 'unknown',
    cores: cores.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
    date: new Date().toISOString(),
  };
}

export function printTable(title: string, head: string[], rows: unknown[][]): void {
  const table = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map((cell) => (cell === undefined || cell === null ? '' : String(cell))));
  console.log(`\n${title}\n${table.toString()}`);
}

export function printMachine(): void {
  const m = machine();
  console.log(
    `machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, node ${m.node}, load ${m.loadAverage.join(' ')}`,
  );
}

/** Writes bench/results/<name>-<date>.json with the machine beside the figures; returns the path. */
export function writeResults(name: string, data: Record<string, unknown>): string {
  const dir = join(import.meta.dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ benchmark: name, machine: machine(), ...data }, null, 2));
  console.log(`\nwrote ${file}`);
  return file;
}

export function log(message: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}
