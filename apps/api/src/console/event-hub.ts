import type { Logger } from '#core';
import { CheckStatusReads, type CheckStatus } from '#readmodels';
import type { StateStore } from '#statestore';

export interface HubEvent {
  event: 'status' | 'alert';
  data: unknown;
}

type Listener = (event: HubEvent) => void;

interface AccountFeed {
  listeners: Set<Listener>;
  timer: NodeJS.Timeout;
  statuses: Map<string, string> | null;
  seenAlerts: Set<string> | null;
  busy: boolean;
}

const ALERT_WINDOW = 50;

/**
 * One poller per account with listeners in this process, however many connections it has: it
 * reads the account's status hash and newest alerts once per interval and fans out the changes.
 * Polling the read model (not the bus) keeps every API replica correct with no extra consumer
 * group per replica, at one HGETALL per active account per interval.
 */
export class EventHub {
  private readonly feeds = new Map<string, AccountFeed>();
  private readonly reads: CheckStatusReads;

  constructor(
    private readonly store: StateStore,
    private readonly log: Logger,
    private readonly intervalMs = 1000,
  ) {
    this.reads = new CheckStatusReads(store);
  }

  subscribe(accountId: string, listener: Listener): () => void {
    let feed = this.feeds.get(accountId);
    if (!feed) {
      const created: AccountFeed = {
        listeners: new Set(),
        statuses: null,
        seenAlerts: null,
        busy: false,
        timer: setInterval(() => void this.poll(accountId, created), this.intervalMs),
      };
      feed = created;
      this.feeds.set(accountId, feed);
      void this.poll(accountId, feed);
    }
    feed.listeners.add(listener);
    return () => {
      const current = this.feeds.get(accountId);
      if (!current) return;
      current.listeners.delete(listener);
      if (current.listeners.size === 0) {
        clearInterval(current.timer);
        this.feeds.delete(accountId);
      }
    };
  }

  close(): void {
    for (const feed of this.feeds.values()) clearInterval(feed.timer);
    this.feeds.clear();
  }

  private async poll(accountId: string, feed: AccountFeed): Promise<void> {
    if (feed.busy) return;
    feed.busy = true;
    try {
      const [statuses, alerts] = await Promise.all([
        this.reads.statuses(accountId),
        this.reads.alerts({ accountId }, { limit: ALERT_WINDOW, page: 1 }),
      ]);
      const events: HubEvent[] = [];
      const next = new Map<string, string>();
      for (const [checkId, status] of statuses) {
        const stamp = stampOf(status);
        next.set(checkId, stamp);
        if (feed.statuses !== null && feed.statuses.get(checkId) !== stamp)
          events.push({ event: 'status', data: status });
      }
      const seen = new Set(alerts.items.map((a) => a.alertId));
      if (feed.seenAlerts !== null) {
        for (const alert of [...alerts.items].reverse())
          if (!feed.seenAlerts.has(alert.alertId)) events.push({ event: 'alert', data: alert });
      }
      feed.statuses = next;
      feed.seenAlerts = seen;
      for (const event of events) for (const listener of feed.listeners) listener(event);
    } catch (error) {
      this.log.warn({ err: error, accountId }, 'event feed poll failed; retrying');
    } finally {
      feed.busy = false;
    }
  }
}

function stampOf(status: CheckStatus): string {
  return `${status.lastCheckRunId}|${status.hasFailures}|${status.isDegraded}`;
}
