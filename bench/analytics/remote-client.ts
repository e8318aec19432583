/**
 * An HTTP client in a process of its own (http-client-child.ts), as a user's client is: a bench
 * that fetched from the server's own event loop counted the client's work (about 0.4 ms a
 * request, api-overhead.ts) as the API's. Each GET is timed in the child, from the request to the
 * whole body; the IPC hop to and from the child (and the body's copy over it) is not in the figure.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface RemoteResponse {
  status: number;
  /** Request to whole body, measured by the client process. */
  ms: number;
  body: string;
}

export interface RemoteClient {
  get(url: string, headers: Record<string, string>): Promise<RemoteResponse>;
  /**
   * `count` GETs of `url` one after another, untimed: a fresh process's fetch runs cold (its JIT
   * warm-up cost the first matrix cell 2-3 ms a request), where the in-process client had been warmed by the set-up calls.
   */
  warm(url: string, headers: Record<string, string>, count?: number): Promise<void>;
  close(): void;
}

export function remoteClient(): RemoteClient {
  const child = fork(fileURLToPath(new URL('./http-client-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (r: RemoteResponse) => void; reject: (e: Error) => void }>();
  let next = 0;
  child.on('message', (message: RemoteResponse & { id: number }) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    waiter?.resolve(message);
  });
  child.on('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`http client process exited (${code})`));
    pending.clear();
  });
  return {
    get(url, headers) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, url, headers });
      });
    },
    async warm(url, headers, count = 300) {
      for (let i = 0; i < count; i++) await this.get(url, headers);
    },
    close() {
      child.disconnect();
    },
  };
}
