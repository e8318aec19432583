import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '#core';
import { services } from '#test-support';
import { createRedisStateStore } from './redis.ts';
import type { StateStore } from './port.ts';
import { freePort } from '#test-processes';

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const answers = (store: StateStore) =>
  store.ping().then(
    () => true,
    () => false,
  );

// A private redis-server (the binary scripts/services.sh installs) on its own port, so stopping it
// disturbs no other suite; the shared one is stopped only by test/alerting/redis-outage.disruptive.test.ts.
describe('Redis state store across a lost connection', () => {
  services(); // fails the suite (never skips it) when the services, and so redis-server, are missing
  const dir = mkdtempSync(join(tmpdir(), 'vigil-redis-'));
  let server: ChildProcess | undefined;
  const start = (port: number) => {
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
  };
  const stop = async () => {
    const running = server;
    server = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise((resolve) => {
      running.once('exit', resolve);
      running.kill('SIGTERM');
    });
  };
  afterAll(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails every command at once with UnavailableError while Redis is away, and recovers on the same client', async () => {
    const port = await freePort();
    start(port);
    const store = createRedisStateStore({ url: `redis://127.0.0.1:${port}`, keyPrefix: 'outage:' });
    try {
      await until(() => answers(store), 'the private Redis');
      await store.set('k', 'before');

      await stop();
      await until(async () => !(await answers(store)), 'the client to notice');
      const errors = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.get(`k${i}`).then(
            () => null,
            (error: unknown) => error,
          ),
        ),
      );
      for (const error of errors) {
        expect(error).toBeInstanceOf(UnavailableError);
        // Failed at once, from the known state, not after waiting in the offline queue for reconnects.
        expect((error as Error).message).toMatch(/^Redis is unavailable \(get\): /);
        expect((error as Error).message).not.toMatch(/max retries/i);
      }
      await expect(store.ping()).rejects.toThrow(/Redis/);

      // Something accepts connections on the port but never answers (as a server still loading its
      // data keeps a client from being ready): commands must not wait in the queue for it.
      const held: Socket[] = [];
      const blackHole = createServer((socket) => held.push(socket));
      await new Promise<void>((resolve) => blackHole.listen(port, '127.0.0.1', resolve));
      await until(async () => held.length > 0, 'the client to reconnect to the silent port');
      const stalled = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.get(`s${i}`).then(
            () => null,
            (error: unknown) => error,
          ),
        ),
      );
      for (const error of stalled) {
        expect(error).toBeInstanceOf(UnavailableError);
        expect((error as Error).message).toMatch(/^Redis is unavailable \(get\): /);
        expect((error as Error).message).not.toMatch(/timed out|max retries/i);
      }
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));

      start(port);
      await until(() => answers(store), 'the client to reconnect by itself');
      expect(await store.get('k')).toBeNull(); // a fresh server without persistence
      await store.set('k', 'after');
      expect(await store.get('k')).toBe('after');
    } finally {
      await store.close();
    }
  });
});
