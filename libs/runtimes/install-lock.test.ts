import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, sleep } from '#core';
import { withInstallLock } from './install-lock.ts';

const logger = createLogger({ level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'vigil-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('withInstallLock', () => {
  it('runs holders one at a time and removes the lock afterwards', async () => {
    const path = join(dir, 'a.lock');
    const events: string[] = [];
    const hold = (name: string) =>
      withInstallLock(
        path,
        async () => {
          events.push(`${name} in`);
          await sleep(300);
          events.push(`${name} out`);
          return name;
        },
        { logger },
      );
    expect(await Promise.all([hold('first'), hold('second')])).toEqual(['first', 'second']);
    // Whichever got it first, the other entered only after it left.
    const [one, two] = [events[0]!.split(' ')[0], events[2]!.split(' ')[0]];
    expect(events).toEqual([`${one} in`, `${one} out`, `${two} in`, `${two} out`]);
    expect(new Set([one, two])).toEqual(new Set(['first', 'second']));
    expect(readdirSync(dir)).not.toContain('a.lock');
  });

  it('releases the lock when the holder throws', async () => {
    const path = join(dir, 'b.lock');
    await expect(withInstallLock(path, async () => Promise.reject(new Error('boom')), { logger })).rejects.toThrow(
      'boom',
    );
    expect(await withInstallLock(path, async () => 'again', { logger })).toBe('again');
  });

  it('breaks a lock left by a process that is gone', async () => {
    const path = join(dir, 'c.lock');
    // A pid far above pid_max's default cannot be alive.
    writeFileSync(path, JSON.stringify({ pid: 2 ** 30, host: hostname(), at: Date.now(), token: 'dead' }));
    expect(await withInstallLock(path, async () => 'taken', { logger, waitMs: 2_000 })).toBe('taken');
  });

  it('breaks a lock older than staleMs even if its holder looks alive', async () => {
    const path = join(dir, 'd.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() - 60_000, token: 'hung' }));
    expect(await withInstallLock(path, async () => 'taken', { logger, staleMs: 30_000, waitMs: 2_000 })).toBe('taken');
  });

  it('gives up with a 503 naming the lock when a live holder keeps it', async () => {
    const path = join(dir, 'e.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), token: 'live' }));
    await expect(withInstallLock(path, async () => 'never', { logger, waitMs: 600 })).rejects.toMatchObject({
      statusCode: 503,
      message: expect.stringContaining('e.lock'),
    });
  });
});
