import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { WATCHDOG_TOOLS } from './bwrap-args.ts';
import { HOST_UID_BASE, HOST_UID_SPAN, SANDBOX_UID, type ProbeResult } from './types.ts';

/**
 * Starts a throw-away sandbox with the same namespaces, uid drop and mounts kinds a run uses, and
 * runs /usr/bin/true in it. Anything short of that exiting 0 means "no sandbox here", with why.
 */
export async function probeBwrap(bwrap: string, base: string): Promise<ProbeResult> {
  try {
    await access(bwrap, constants.X_OK);
  } catch {
    return { available: false, reason: `bubblewrap is not installed (no executable ${bwrap})` };
  }
  // Every run's watchdog needs them: without one a run would be killed at once (see launcherScript).
  for (const tool of Object.values(WATCHDOG_TOOLS)) {
    try {
      await access(tool, constants.X_OK);
    } catch {
      return { available: false, reason: `coreutils is incomplete (no executable ${tool})` };
    }
  }
  const args = [
    // The top of the range runs use: a host whose uid map lacks it (a rootless container) says so here.
    `--reuid=${HOST_UID_BASE + HOST_UID_SPAN - 1}`,
    `--regid=${HOST_UID_BASE + HOST_UID_SPAN - 1}`,
    '--clear-groups',
    '--no-new-privs',
    '--',
    bwrap,
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--ro-bind',
    base,
    '/base',
    '--',
    '/usr/bin/true',
  ];
  return new Promise((resolve) => {
    execFile('setpriv', args, { env: {}, timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve({ available: true });
      const detail = stderr.trim().split('\n')[0] || `${bwrap} exited with ${error.code ?? error.signal}`;
      resolve({ available: false, reason: `bubblewrap cannot create its namespaces here: ${detail}` });
    });
  });
}
