import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCgroups } from './cgroup.ts';

const unavailable = createCgroups().unavailable;
const inCi = process.env.CI === 'true';

function parentOf(controller: string): string {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes(controller));
  return join('/sys/fs/cgroup', controller, line ? line.split(':').slice(2).join(':') : '/');
}

/** Pids of exited processes: what a dead runner's cgroup directories are named after. */
function deadPids(count: number): number[] {
  return Array.from({ length: count }, () => spawnSync('true').pid ?? 0).filter((pid) => pid > 0);
}

describe.skipIf(unavailable !== undefined && !inCi)('sweepStaleCgroups', () => {
  it('lets several runners starting at once sweep the same dead runners without an error', async () => {
    expect(unavailable).toBeUndefined();
    const dirs = deadPids(60).flatMap((pid) =>
      ['memory', 'pids'].map((controller) => {
        const dir = join(parentOf(controller), `vigil-sandbox-${pid}`);
        mkdirSync(join(dir, 'run-1'), { recursive: true });
        return dir;
      }),
    );
    // Runners are separate processes: each lists the dead runners' directories, and another may
    // remove one between that listing and its own visit.
    const module = fileURLToPath(new URL('./cgroup.ts', import.meta.url));
    const sweeps = Array.from({ length: 4 }, async () => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '-e', `import(${JSON.stringify(module)}).then((m) => m.sweepStaleCgroups())`],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, stderr };
    });
    expect(await Promise.all(sweeps)).toEqual(Array.from({ length: 4 }, () => ({ code: 0, stderr: '' })));
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
  });
});
