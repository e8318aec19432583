import { connect } from 'node:net';

/**
 * Watches whether a service's port accepts connections, sampling every intervalMs. The fault
 * suites stop a shared service, but another engineer's test run may start it again early
 * (`scripts/services.sh up` in its global setup); a request counts as made during the outage only
 * when the watcher saw the port closed before it began and until after it ended.
 */
export function watchPort(host: string, port: number, intervalMs = 100) {
  const samples: { at: number; open: boolean }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      samples.push({ at, open: await isOpen(host, port) });
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    /** Resolves once a sample taken after `at` found the port closed, so a probe begun now counts as made during the outage. */
    async closedAfter(at: number): Promise<void> {
      while (running && !samples.some((s) => s.at > at && !s.open))
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
    },
    /** True when every sample from before start to after end found the port closed. */
    closedThroughout(start: number, end: number): boolean {
      const before = samples.filter((s) => s.at <= start).at(-1);
      const after = samples.find((s) => s.at >= end);
      if (!before || !after || before.open || after.open) return false;
      return samples.every((s) => s.at < before.at || s.at > after.at || !s.open);
    },
    /** Milliseconds between the first closed sample and the next open one (the longest such run). */
    longestClosedMs(): number {
      let longest = 0;
      let since: number | undefined;
      for (const s of samples) {
        if (!s.open && since === undefined) since = s.at;
        if (s.open && since !== undefined) {
          longest = Math.max(longest, s.at - since);
          since = undefined;
        }
      }
      return since === undefined ? longest : Math.max(longest, Date.now() - since);
    },
    async stop(): Promise<void> {
      running = false;
      await loop;
    },
  };
}
export type PortWatcher = ReturnType<typeof watchPort>;

function isOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
