/**
 * Tells read-model caches that documents changed, on every replica. A cache may answer from
 * memory only while `live()` holds: then every change published anywhere reaches its listeners.
 * While delivery may have a gap (a subscriber reconnecting), caches read through to the store.
 */
export interface ReadModelInvalidation {
  /** Announces a change: this process's listeners run before it returns, other replicas' on delivery. */
  publish(): Promise<void>;
  /** Runs listener on every change, and whenever delivery was interrupted or resumed; returns an unsubscribe. */
  subscribe(listener: () => void): () => void;
  live(): boolean;
  close(): Promise<void>;
}

/** The embedded mode's: the process that writes the read models is the only one that reads them. */
export function createLocalInvalidation(): ReadModelInvalidation {
  const listeners = new Set<() => void>();
  return {
    publish() {
      for (const listener of listeners) listener();
      return Promise.resolve();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    live: () => true,
    close: () => Promise.resolve(),
  };
}
