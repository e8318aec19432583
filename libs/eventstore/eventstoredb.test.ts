import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError, ValidationError } from '#core';
import { testEvent } from './contract.ts';
import { createEventStoreDbEventStore } from './eventstoredb.ts';

// No EventStoreDB runs here (see eventstoredb.int.test.ts), but an unreachable one can be
// simulated: port 1 on loopback refuses connections at once.
const unreachable = 'esdb://127.0.0.1:1?tls=false&defaultDeadline=3000';

describe('EventStoreDB adapter without a server', () => {
  it('turns connection failures into UnavailableError on every operation', async () => {
    const store = createEventStoreDbEventStore({ connectionString: unreachable });
    try {
      await expect(store.append('s-1', [testEvent()], 'no_stream')).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.readStream('s-1')).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.headPosition()).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
      const iterate = async () => {
        for await (const _ of store.subscribeToAll({ signal: AbortSignal.timeout(10_000) })) break;
      };
      await expect(iterate()).rejects.toBeInstanceOf(UnavailableError);
    } finally {
      await store.close();
    }
  });

  it('validates events before calling the server', async () => {
    const store = createEventStoreDbEventStore({ connectionString: unreachable });
    try {
      await expect(store.append('s-1', [], 'any')).rejects.toBeInstanceOf(ValidationError);
      await expect(store.append('s-1', [{ ...testEvent(), type: '$system' }], 'any')).rejects.toBeInstanceOf(
        ValidationError,
      );
    } finally {
      await store.close();
    }
  });

  it('rejects a malformed connection string as unavailable', () => {
    expect(() => createEventStoreDbEventStore({ connectionString: 'http://nope' })).toThrow(UnavailableError);
  });

  describe('against a server that accepts connections and never answers', () => {
    let server: Server;
    const sockets = new Set<Socket>();
    let silent: string;
    beforeAll(async () => {
      server = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      silent = `esdb://127.0.0.1:${address.port}?tls=false`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<unknown> {
      return Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve('hung'), ms))]);
    }

    it('ends a hanging subscription when its signal aborts', async () => {
      const store = createEventStoreDbEventStore({ connectionString: silent });
      try {
        const controller = new AbortController();
        const next = store.subscribeToAll({ signal: controller.signal })[Symbol.asyncIterator]().next();
        setTimeout(() => controller.abort(), 100);
        expect(await settlesWithin(next, 3_000)).toEqual({ done: true, value: undefined });
      } finally {
        void store.close();
      }
    });

    it('ends a hanging subscription on close', async () => {
      const store = createEventStoreDbEventStore({ connectionString: silent });
      const next = store.subscribeToAll()[Symbol.asyncIterator]().next();
      setTimeout(() => void store.close(), 100);
      expect(await settlesWithin(next, 3_000)).toEqual({ done: true, value: undefined });
    });
  });

  it('fails after close', async () => {
    const store = createEventStoreDbEventStore({ connectionString: unreachable });
    await store.close();
    await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
  });
});
