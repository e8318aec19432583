import { readdirSync, readFileSync } from 'node:fs';
import type { RunCgroup } from './cgroup.ts';

const PAGE = 4096;

/**
 * Fallback when per-run cgroups cannot be made: sums the resident memory of the launcher's process
 * tree every 100 ms and calls `over` past the cap. Coarser than the kernel's cgroup limit (a fast
 * allocation can overshoot by what it touches in 100 ms), which is why cgroups come first.
 */
export function watchTreeMemory(root: number, capBytes: number, over: () => void): () => void {
  const timer = setInterval(() => {
    if (treeRss(root) > capBytes) over();
  }, 100);
  return () => clearInterval(timer);
}

function treeRss(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // Exited while we looked.
    }
  }
  let total = 0;
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop()!;
    try {
      total += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE;
    } catch {
      // Exited.
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Calls `over` once the run's memory cgroup has had a process OOM-killed. */
export function watchOom(cgroup: RunCgroup, over: () => void): () => void {
  const timer = setInterval(() => {
    try {
      if (cgroup.oomKilled()) over();
    } catch {
      // The cgroup is being removed.
    }
  }, 100);
  return () => clearInterval(timer);
}
