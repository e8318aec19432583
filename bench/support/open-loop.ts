import { Agent, request } from 'node:http';
import { percentile } from './stats.ts';

export interface OpenLoopStep {
  /** Arrivals per second asked for. */
  rate: number;
  /** Requests sent (each at its scheduled time, whatever was outstanding). */
  sent: number;
  /** Arrivals per second actually sent: below `rate` when this process could not keep up. */
  sentPerSec: number;
  /** 2xx answers per second of arrivals (answers over the time the arrivals took to send). */
  okPerSec: number;
  ok: number;
  non2xx: number;
  /** Connection errors and requests still unanswered at the step's deadline. */
  errors: number;
  /** Latency from each request's scheduled arrival (not from when a socket was free), in ms. */
  p50: number;
  p99: number;
  max: number;
  /** Most requests outstanding at once. */
  maxInFlight: number;
}

export interface OpenLoopOptions {
  url: string;
  method: 'GET' | 'POST';
  /** The path of the i-th arrival. */
  path: (i: number) => string;
  rate: number;
  seconds: number;
  /** Keep-alive sockets at most; arrivals beyond them queue in the agent, and their wait counts. */
  sockets: number;
  /** After the last arrival, how long answers are awaited before the rest count as errors. */
  drainMs?: number;
}

/**
 * Open-loop load: request i is sent at start + i / rate, whether or not earlier ones were answered
 * (cron jobs do not wait for each other), and its latency runs from that scheduled time, so a slow
 * server shows as latency instead of as fewer requests (no coordinated omission). A 1 ms timer
 * sends whatever is due; the generator's own lag shows as sentPerSec below rate.
 */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopStep> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.sockets, maxFreeSockets: options.sockets });
  const target = new URL(options.url);
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let sent = 0;
  const start = performance.now();
  let settleAll: () => void = () => undefined;
  const allSettled = new Promise<void>((resolve) => (settleAll = resolve));
  let settled = 0;

  const settle = (scheduled: number, status: number | null) => {
    const now = performance.now();
    inFlight -= 1;
    if (status === null) errors += 1;
    else {
      latencies.push(now - scheduled);
      if (status >= 200 && status < 300) ok += 1;
      else non2xx += 1;
    }
    if (++settled === total) settleAll();
  };

  const send = (i: number) => {
    const scheduled = start + (i * 1000) / options.rate;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: options.method,
        path: options.path(i),
        headers: { 'content-length': '0' },
      },
      (res) => {
        res.resume();
        res.on('end', () => settle(scheduled, res.statusCode ?? 0));
        res.on('error', () => settle(scheduled, null));
      },
    );
    req.on('error', () => settle(scheduled, null));
    req.end();
  };

  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * options.rate) / 1000) + 1);
      while (sent < due) send(sent++);
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  const sentAt = performance.now();
  const drained = await Promise.race([
    allSettled.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), options.drainMs ?? 10_000)),
  ]);
  agent.destroy();
  const unanswered = drained ? 0 : total - settled;
  latencies.sort((a, b) => a - b);
  const round1 = (ms: number) => Math.round(ms * 10) / 10;
  return {
    rate: options.rate,
    sent,
    sentPerSec: Math.round((sent * 1000) / (sentAt - start)),
    okPerSec: Math.round((ok * 1000) / Math.max(1, sentAt - start)),
    ok,
    non2xx,
    errors: errors + unanswered,
    p50: round1(percentile(latencies, 0.5)),
    p99: round1(percentile(latencies, 0.99)),
    max: round1(latencies.at(-1) ?? 0),
    maxInFlight,
  };
}
