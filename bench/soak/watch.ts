import { connect } from 'node:net';
import { benchConfig } from '../config.ts';
import { sleep } from '../support/stats.ts';

/** A time a backing service refused connections: [from, to] in ms since the epoch. */
export interface Outage {
  service: string;
  from: number;
  to: number;
}

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/**
 * The shared servers are shared: other suites stop Redis, Kafka or ClickHouse on purpose. Every
 * `intervalMs` this tries a TCP connect to each, so a 503 can be set beside an outage the soak did
 * not cause.
 */
export function watchServices(intervalMs = 1000) {
  const targets = [
    ['redis', benchConfig.redisUrl],
    ['kafka', `tcp://${benchConfig.kafkaBrokers.split(',')[0]}`],
    ['clickhouse', benchConfig.clickhouseUrl],
    ['postgres', benchConfig.eventStorePostgresUrl],
  ].map(([service, url]) => {
    const parsed = new URL(url!);
    return { service: service!, host: parsed.hostname, port: Number(parsed.port) };
  });
  const outages: Outage[] = [];
  const open = new Map<string, Outage>();
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        targets.map(async ({ service, host, port }) => {
          const up = await reachable(host, port);
          const now = Date.now();
          const current = open.get(service);
          if (!up && !current) {
            const outage = { service, from: now, to: now };
            open.set(service, outage);
            outages.push(outage);
          } else if (!up && current) current.to = now;
          else if (up && current) open.delete(service);
        }),
      );
      await sleep(intervalMs);
    }
  })();
  return {
    outages,
    async stop() {
      running = false;
      await loop;
    },
  };
}
