import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, isIP, type Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { Logger } from '#core';
import { AddressRefused, resolveGuarded } from '#probes';

/**
 * The sandbox's only way out. One proxy per run, owned by the runner, listening on a Unix socket
 * that is bind-mounted into the sandbox. Every target is resolved once here, judged by the
 * connect-time address policy, and then connected to by that exact address, so a name that
 * changes its answer between check and connect (DNS rebinding) gains nothing.
 */
export interface EgressProxyOptions {
  allowPrivate: boolean;
  logger: Logger;
  /** Connections open at once (tunnels and forwarded requests). */
  maxConnections?: number;
  /** Bytes in both directions over the run; past it every connection is cut. */
  maxBytes?: number;
  /** Extra CAs trusted when the proxy itself speaks TLS (absolute-form https:// requests). */
  trustedCa?: string[];
  connectTimeoutMs?: number;
}

export interface EgressStats {
  connections: number;
  refused: number;
  bytes: number;
}

export interface EgressProxy {
  listen(socketPath: string): Promise<void>;
  stats(): EgressStats;
  close(): Promise<void>;
}

export const EGRESS_MAX_CONNECTIONS = 64;
export const EGRESS_MAX_BYTES = 256 * 1024 * 1024;
const MAX_LOOKUPS = 2;

// Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded to the target.
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

class ProxyRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function parsePort(raw: string, fallback: number): number {
  if (raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ProxyRefusal(400, `bad port ${raw}`);
  return port;
}

function rawReply(socket: Duplex, status: number, reason: string, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  429: 'Too Many Requests',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

export function createEgressProxy(options: EgressProxyOptions): EgressProxy {
  const maxConnections = options.maxConnections ?? EGRESS_MAX_CONNECTIONS;
  const maxBytes = options.maxBytes ?? EGRESS_MAX_BYTES;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const ca = options.trustedCa?.length ? [...rootCertificates, ...options.trustedCa] : undefined;
  const stats: EgressStats = { connections: 0, refused: 0, bytes: 0 };
  const live = new Set<Duplex>();
  let active = 0;

  function count(chunk: Buffer | string): void {
    stats.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (stats.bytes > maxBytes) for (const socket of live) socket.destroy();
  }

  function track(socket: Duplex): void {
    live.add(socket);
    socket.once('close', () => live.delete(socket));
  }

  /**
   * A connection slot, taken before anything else (resolution included) and given back once when
   * the connection ends or is refused: a flood of CONNECTs cannot grow past the bound.
   */
  function takeSlot(): () => void {
    if (stats.bytes > maxBytes) throw new ProxyRefusal(403, `refused: egress budget of ${maxBytes} bytes used up`);
    if (active >= maxConnections) throw new ProxyRefusal(429, `refused: at most ${maxConnections} connections at once`);
    active += 1;
    let held = true;
    return () => {
      if (held) active -= 1;
      held = false;
    };
  }

  // dns.lookup runs on libuv's small thread pool, shared with the runner's file work: a run may
  // only keep a few lookups in flight (the rest wait their turn) so names that never answer
  // cannot stall the runner.
  let lookups = 0;
  const waiting: (() => void)[] = [];
  async function vet(host: string): Promise<string> {
    if (lookups >= MAX_LOOKUPS) await new Promise<void>((resolve) => waiting.push(resolve));
    lookups += 1;
    try {
      return await resolveGuarded(host, options.allowPrivate);
    } catch (error) {
      if (error instanceof AddressRefused) throw new ProxyRefusal(403, error.message);
      throw new ProxyRefusal(502, `cannot resolve ${host}: ${(error as Error).message}`);
    } finally {
      lookups -= 1;
      waiting.shift()?.();
    }
  }

  function refused(error: unknown, host: string): ProxyRefusal {
    const refusal = error instanceof ProxyRefusal ? error : new ProxyRefusal(502, (error as Error).message);
    if (refusal.status === 403 || refusal.status === 429) stats.refused += 1;
    options.logger.debug({ host, status: refusal.status, reason: refusal.message }, 'sandbox egress refused');
    return refusal;
  }

  async function onConnect(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    track(client);
    client.on('error', () => client.destroy());
    let host = '';
    let release = () => undefined as void;
    try {
      release = takeSlot();
      const target = new URL(`http://${req.url ?? ''}`);
      host = target.hostname;
      if (!host || target.pathname !== '/' || req.url?.includes('/'))
        throw new ProxyRefusal(400, 'CONNECT needs host:port');
      const port = parsePort(target.port, 443);
      const address = await vet(host);
      await tunnel(client, address, port, head, release);
    } catch (error) {
      release();
      const refusal = refused(error, host);
      if (!client.destroyed) rawReply(client, refusal.status, REASONS[refusal.status] ?? 'Error', refusal.message);
    }
  }

  function tunnel(client: Duplex, address: string, port: number, head: Buffer, release: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      stats.connections += 1;
      const upstream: Socket = connect({ host: address, port, timeout: connectTimeoutMs });
      track(upstream);
      // The slot is held until both sides are gone: a reader that never drains keeps its slot.
      let open = 2;
      const closed = () => {
        open -= 1;
        if (open === 0) release();
      };
      client.once('close', closed);
      upstream.once('close', closed);
      // The client is gone, even before the target answered: nobody is left to read it.
      client.once('close', () => {
        upstream.destroy();
        reject(new ProxyRefusal(502, 'the client left'));
      });
      upstream.once('timeout', () => upstream.destroy(new Error(`connect to ${address}:${port} timed out`)));
      // Before the connect a failure is answered with a 502 (the promise is still open);
      // after it, the close handler below cuts the tunnel.
      upstream.once('error', (error) => reject(new ProxyRefusal(502, `cannot connect: ${error.message}`)));
      upstream.once('connect', () => {
        upstream.setTimeout(0);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) {
          count(head);
          upstream.write(head);
        }
        client.on('data', count);
        upstream.on('data', count);
        client.pipe(upstream);
        upstream.pipe(client);
        // A target that hangs up cleanly has had its last bytes handed to the client, which may
        // still be writing them to a slow reader (seen under load: 44 KB of a 1.5 MiB answer).
        // The pipe has already ended the client, so it closes once they are written; only an
        // error cuts it at once.
        upstream.once('close', (hadError) => {
          if (hadError) client.destroy();
        });
        resolve();
      });
    });
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    track(req.socket);
    let host = '';
    let release = () => undefined as void;
    try {
      release = takeSlot();
      let target: URL;
      try {
        target = new URL(req.url ?? '');
      } catch {
        throw new ProxyRefusal(400, 'this is an egress proxy: send absolute-form requests or CONNECT');
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new ProxyRefusal(400, `unsupported scheme ${target.protocol}`);
      host = target.hostname;
      const tls = target.protocol === 'https:';
      const port = parsePort(target.port, tls ? 443 : 80);
      const address = await vet(host);
      await forward(req, res, target, address, port, tls, release);
    } catch (error) {
      release();
      const refusal = refused(error, host);
      if (!res.headersSent) {
        res.writeHead(refusal.status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end(`${refusal.message}\n`);
      } else res.destroy();
    }
  }

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: URL,
    address: string,
    port: number,
    tls: boolean,
    release: () => void,
  ): Promise<void> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
    const family = isIP(address);
    return new Promise((resolve, reject) => {
      stats.connections += 1;
      const upstream = (tls ? httpsRequest : httpRequest)({
        protocol: target.protocol,
        hostname: target.hostname.replace(/^\[|\]$/g, ''),
        port,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
        agent: false,
        timeout: connectTimeoutMs,
        ...(tls && ca ? { ca } : {}),
        // The vetted address, never a second lookup: the name cannot rebind between check and connect.
        lookup: (_host, lookupOptions, callback) => {
          if (lookupOptions.all) callback(null, [{ address, family }]);
          else (callback as (e: null, a: string, f: number) => void)(null, address, family);
        },
      });
      let settled = false;
      upstream.once('socket', (socket) => {
        track(socket);
        socket.on('data', count);
      });
      upstream.once('close', release);
      upstream.once('timeout', () => upstream.destroy(new Error(`no answer from ${target.host} in time`)));
      upstream.once('error', (error) => {
        if (!settled) {
          settled = true;
          reject(new ProxyRefusal(502, `upstream ${target.host}: ${error.message}`));
        } else res.destroy();
      });
      upstream.once('response', (answer) => {
        settled = true;
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
        answer.pipe(res);
        answer.once('end', () => resolve());
        answer.once('error', () => res.destroy());
      });
      req.on('data', count);
      req.pipe(upstream);
    });
  }

  const server: Server = createServer({ requestTimeout: 0 });
  server.maxConnections = maxConnections * 2;
  server.on('connect', (req, socket, head) => void onConnect(req, socket, head));
  server.on('request', (req, res) => void onRequest(req, res));
  // WebSockets through an HTTP proxy tunnel with CONNECT (browsers, ws, undici); plain upgrades are not relayed.
  server.on('upgrade', (_req, socket) => rawReply(socket, 501, 'Not Implemented', 'use CONNECT for websockets'));
  server.on('clientError', (_error, socket) => socket.destroy());

  return {
    listen: (socketPath) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, () => {
          server.off('error', reject);
          resolve();
        });
      }),
    stats: () => ({ ...stats }),
    close: () =>
      new Promise((resolve) => {
        for (const socket of live) socket.destroy();
        server.closeAllConnections();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}
