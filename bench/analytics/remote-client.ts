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
    close() {
      child.disconnect();
    },
  };
}
