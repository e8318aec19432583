import { decideLocationAlerts, type LocationAlert } from '#alerting';
import { sleep, type Logger } from '#core';
import type { PrivateLocationReads } from '#readmodels';
import type { StateStore } from '#statestore';

/**
 * Private locations an agent ever polled, scored by when one last did (ms). The API's agent routes
 * keep it (beside each agent's own presence); the watch reads it.
 */
export const AGENT_LOCATIONS_KEY = 'agents:locations';
const outageKey = (locationId: string) => `location-outage:${locationId}`;
const LOCK_KEY = 'location-watch:lock';

export interface LocationWatchOptions {
  store: StateStore;
  locations: PrivateLocationReads;
  /** Delivers the alerts; resolves once every delivery is durably recorded. */
  deliver: (alerts: LocationAlert[]) => Promise<void>;
  unavailableAfterMs: number;
  log: Logger;
  /** How often to look; by default a quarter of the window, between 250 ms and 30 s. */
  everyMs?: number;
  clock?: () => number;
}

/**
 * Watches private locations' presence and alerts when one goes dark (no agent polled within the
 * window) and when it comes back. Nothing is kept in memory: the open outage of each location is
 * in the state store, written only after its alert's deliveries are recorded, so a watcher that
 * dies in between decides the same alert (same id) again and the dispatcher skips what it sent.
 * Replicas take turns through a lock that lasts one interval.
 */
export class LocationWatch {
  private readonly everyMs: number;
  private readonly clock: () => number;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly log: Logger;

  constructor(private readonly options: LocationWatchOptions) {
    this.everyMs = options.everyMs ?? Math.min(30_000, Math.max(250, Math.floor(options.unavailableAfterMs / 4)));
    this.clock = options.clock ?? Date.now;
    this.log = options.log.child({ component: 'location-watch' });
  }

  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        try {
          if (await this.options.store.setIfAbsent(LOCK_KEY, '1', { ttlMs: this.everyMs })) await this.tick();
        } catch (error) {
          this.log.warn({ err: error }, 'private location watch failed; trying again');
        }
        await sleep(this.everyMs, signal);
      }
    })();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    this.loop = undefined;
  }

  /** One look at every location an agent ever polled; returns the alerts it delivered. */
  async tick(): Promise<LocationAlert[]> {
    const { store, locations } = this.options;
    const seen = await store.zrange(AGENT_LOCATIONS_KEY, 0, -1);
    if (seen.length === 0) return [];
    const outages = await store.getMany(seen.map((entry) => outageKey(entry.member)));
    const delivered: LocationAlert[] = [];
    for (const [i, entry] of seen.entries()) {
      const view = await locations.location(entry.member);
      if (!view) {
        // Deleted: it alerts no more.
        await store.write([
          { op: 'zrem', key: AGENT_LOCATIONS_KEY, member: entry.member },
          { op: 'del', key: outageKey(entry.member) },
        ]);
        continue;
      }
      const open = outages[i] === null ? null : Number(outages[i]);
      const decision = decideLocationAlerts({
        accountId: view.accountId,
        locationId: entry.member,
        lastSeenMs: entry.score,
        openOutageMs: open !== null && Number.isFinite(open) ? open : null,
        now: this.clock(),
        unavailableAfterMs: this.options.unavailableAfterMs,
      });
      if (decision.alerts.length === 0) continue;
      await this.options.deliver(decision.alerts);
      if (decision.openOutageMs === null) await store.del(outageKey(entry.member));
      else await store.set(outageKey(entry.member), String(decision.openOutageMs));
      for (const alert of decision.alerts)
        this.log.info({ locationId: alert.locationId, alertType: alert.alertType }, 'private location alert');
      delivered.push(...decision.alerts);
    }
    return delivered;
  }
}
