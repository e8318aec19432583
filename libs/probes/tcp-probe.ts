import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TcpRequest } from '#domain';
import { checkLiteral, guardedLookup } from './address.ts';
import { judgeAssertions } from './assertions.ts';
import { errorText, type RawRun } from './result.ts';
import { substitute } from './secrets.ts';

/** The reply is read up to this size. */
export const TCP_REPLY_CAP = 64 * 1024;
/** The reply is complete when the peer closes, the cap is reached, or it is quiet this long. */
export const TCP_REPLY_IDLE_MS = 300;

interface Exchange {
  connectedAt: number;
  lookupAt?: number;
  reply: string;
  doneAt: number;
}

function exchange(
  host: string,
  port: number,
  family: 4 | 6,
  data: string | undefined,
  awaitReply: boolean,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<Exchange> {
  const refused = checkLiteral(host, allowPrivate);
  if (refused) return Promise.reject(refused);
  return new Promise((resolve, reject) => {
    let lookupAt: number | undefined;
    let connectedAt = 0;
    let lastDataAt: number | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    let settled = false;
    const socket = net.connect({
      host: host.replace(/^\[|\]$/g, ''),
      port,
      family,
      autoSelectFamily: false,
      lookup: guardedLookup(allowPrivate, () => (lookupAt = performance.now())) as unknown as net.LookupFunction,
    });
    const done = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (error) return reject(error);
      const result: Exchange = {
        connectedAt,
        reply: Buffer.concat(chunks).toString('utf8'),
        // The idle wait that ends a reply is not the target's time.
        doneAt: lastDataAt ?? performance.now(),
      };
      if (lookupAt !== undefined) result.lookupAt = lookupAt;
      resolve(result);
    };
    const onAbort = () => done(signal.reason ?? new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const quietFor = () => {
      clearTimeout(idle);
      idle = setTimeout(() => done(), TCP_REPLY_IDLE_MS);
    };
    socket.once('connect', () => {
      connectedAt = performance.now();
      if (data !== undefined && data !== '') socket.write(data);
      if (!awaitReply) done();
    });
    socket.on('data', (chunk: Buffer) => {
      lastDataAt = performance.now();
      chunks.push(chunk.subarray(0, Math.max(0, TCP_REPLY_CAP - size)));
      size += chunk.length;
      if (size >= TCP_REPLY_CAP) done();
      else quietFor();
    });
    socket.once('end', () => done());
    socket.once('error', (error) => (connectedAt > 0 && awaitReply ? done() : done(error)));
  });
}

export async function runTcp(
  request: TcpRequest,
  vars: Record<string, string>,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<RawRun> {
  const start = performance.now();
  const host = substitute(request.hostname, vars);
  const data = request.data === undefined ? undefined : substitute(request.data, vars);
  // Without data to send or a reply to check, a connect is the whole run.
  const awaitReply =
    (data !== undefined && data !== '') || request.assertions.some((a) => a.source === 'RESPONSE_DATA');
  const family = request.ipFamily === 'IPv6' ? 6 : 4;
  let result: Exchange;
  try {
    result = await exchange(host, request.port, family, data, awaitReply, allowPrivate, signal);
  } catch (error) {
    return {
      responseTime: performance.now() - start,
      error: `TCP ${host}:${request.port}: ${errorText(error)}`,
      assertions: [],
    };
  }
  const responseTime = result.doneAt - start;
  const assertions = judgeAssertions('TCP', request.assertions, { responseData: result.reply, responseTime });
  return {
    responseTime,
    assertions,
    timings: {
      dns: result.lookupAt === undefined ? 0 : result.lookupAt - start,
      connection: result.connectedAt - (result.lookupAt ?? start),
      data: result.doneAt - result.connectedAt,
      total: responseTime,
    },
  };
}
