/**
 * Summarises a V8 .cpuprofile (from `--cpu-prof`): self time by package or source folder, and
 * the hottest functions. A .heapprofile (from `--heap-prof`) the same way by bytes allocated.
 * `npm run bench -- profile <file.cpuprofile | file.heapprofile> [--top 25]`
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { printTable } from './report.ts';
import { round } from './stats.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** node_modules/<package>, apps/<app>, libs/<lib>, bench, node internals, or the special frames. */
function area(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const ours = /\/(apps|libs)\/([^/]+)\//.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:')) return url.split('/')[0]!.replace(/^node:internal.*/, 'node:internal');
  return url.replace(/^file:\/\/.*\/(bench|test)\//, '$1/');
}

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  const top = Number(values.top);
  for (const file of positionals) {
    if (file.endsWith('.heapprofile')) {
      summariseAllocations(file, top);
      continue;
    }
    const profile = JSON.parse(readFileSync(file, 'utf8')) as {
      nodes: ProfileNode[];
      samples: number[];
      timeDeltas: number[];
    };
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const self = new Map<number, number>();
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const areas = new Map<string, number>();
    const functions = new Map<string, number>();
    for (const [id, us] of self) {
      const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
      const where = area(url, functionName);
      areas.set(where, (areas.get(where) ?? 0) + us);
      const key = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
      functions.set(key, (functions.get(key) ?? 0) + us);
    }
    const share = (us: number) => `${round((100 * us) / total)}%`;
    const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
    console.log(`\n${file}: ${round(total / 1e6, 2)} s of samples`);
    printTable(
      'self time by area',
      ['area', 'share', 's'],
      sorted(areas).map(([name, us]) => [name, share(us), round(us / 1e6, 2)]),
    );
    printTable(
      'hottest functions (self time)',
      ['function', 'share'],
      sorted(functions).map(([name, us]) => [name, share(us)]),
    );
  }
}

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated by area and by function (self: the function's own allocations), largest first. */
function summariseAllocations(file: string, top: number): void {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, bytes: number) => map.set(key, (map.get(key) ?? 0) + bytes);
  let total = 0;
  const stack = [head];
  while (stack.length > 0) {
    const node = stack.pop()!;
    stack.push(...node.children);
    if (node.selfSize === 0) continue;
    total += node.selfSize;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = area(url, functionName);
    add(areas, where, node.selfSize);
    add(functions, `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`, node.selfSize);
  }
  const share = (bytes: number) => `${round((100 * bytes) / total)}%`;
  const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(`\n${file}: ${round(total / 2 ** 20, 1)} MiB allocated (sampled)`);
  printTable(
    'bytes allocated by area',
    ['area', 'share', 'MiB'],
    sorted(areas).map(([name, bytes]) => [name, share(bytes), round(bytes / 2 ** 20, 1)]),
  );
  printTable(
    'allocating functions (self)',
    ['function', 'share', 'MiB'],
    sorted(functions).map(([name, bytes]) => [name, share(bytes), round(bytes / 2 ** 20, 1)]),
  );
}
