/**
 * Preloaded (--require) into every process of a script run, inside the sandbox.
 *
 * Compile cache: Playwright Test starts two Node processes per run that each compile most of
 * Playwright. The runner fills V8's code cache once per runtime with a run of its own script and
 * binds it read-only; each process here copies it into the run's private /tmp (Node writes new
 * entries back) and enables it. A script can never write to the copy another run reads.
 *
 * Proxy: Node's own fetch
 * (undici, bundled into Node) ignores HTTP(S)_PROXY before Node 24's NODE_USE_ENV_PROXY, and the
 * sandbox's network holds only loopback: without this, fetch would simply fail. Node keeps its
 * global dispatcher under a registered symbol that its fetch reads; we replace it with an Agent of
 * the same (bundled) class whose connector opens a CONNECT tunnel through the egress proxy.
 */
import { cpSync } from 'node:fs';
import nodeModule from 'node:module';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { connect as tlsConnect } from 'node:tls';

type Callback = (error: Error | null, socket: Socket | null) => void;
interface ConnectOptions {
  hostname: string;
  protocol: string;
  port: string;
  servername?: string;
}

const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const HEAD_LIMIT = 16 * 1024;

function tunnel(proxy: URL, options: ConnectOptions, callback: Callback): void {
  const https = options.protocol === 'https:';
  const host = options.hostname;
  const port = options.port || (https ? '443' : '80');
  const authority = `${host}:${port}`;
  const socket = netConnect({ host: proxy.hostname, port: Number(proxy.port || 80) });
  let done = false;
  const fail = (error: Error) => {
    if (done) return;
    done = true;
    socket.destroy();
    callback(error, null);
  };
  socket.once('error', fail);
  socket.once('connect', () => {
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > HEAD_LIMIT) fail(new Error('egress proxy: oversized reply'));
      return;
    }
    socket.off('data', onData);
    const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
    const rest = head.subarray(end + 4);
    if (!/^HTTP\/1\.[01] 2\d\d/.test(statusLine)) {
      // The proxy explains a refusal (address policy, bad target) in its reply's body.
      const reason = rest.toString('utf8').trim() || statusLine;
      return fail(new Error(`egress proxy refused ${authority}: ${reason}`));
    }
    if (rest.length > 0) socket.unshift(rest);
    socket.off('error', fail);
    if (!https) {
      done = true;
      return callback(null, socket);
    }
    const secure = tlsConnect({
      socket,
      servername: options.servername || (/^[\d.]+$|^\[/.test(host) ? undefined : host),
      ALPNProtocols: ['http/1.1'],
    });
    secure.once('error', fail);
    secure.once('secureConnect', () => {
      secure.off('error', fail);
      done = true;
      callback(null, secure);
    });
  };
  socket.on('data', onData);
}

function compileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  /* eslint-disable no-restricted-properties -- the sandboxed script's own environment */
  const fill = process.env.VIGIL_COMPILE_CACHE_FILL;
  const shared = process.env.VIGIL_COMPILE_CACHE;
  /* eslint-enable no-restricted-properties */
  if (typeof enable !== 'function') return;
  if (fill) {
    enable(fill);
    return;
  }
  if (!shared) return;
  const own = `${tmpdir()}/vigil-compile-cache-${process.pid}`;
  try {
    cpSync(shared, own, { recursive: true });
    enable(own);
  } catch {
    // No cache is only slower.
  }
}

/** Swaps Node's global dispatcher for one that tunnels through the proxy. */
function useProxy(fetch: typeof globalThis.fetch, proxy: URL): void {
  // Node creates its dispatcher on the first fetch; a data: URL makes it exist without a connection.
  fetch('data:,').catch(() => undefined);
  const store = globalThis as unknown as Record<symbol, { constructor: new (options: object) => unknown } | undefined>;
  const current = store[DISPATCHER];
  if (!current) return;
  const Agent = current.constructor;
  store[DISPATCHER] = new Agent({
    connect: (options: ConnectOptions, callback: Callback) => tunnel(proxy, options, callback),
  }) as never;
}

function install(): void {
  // eslint-disable-next-line no-restricted-properties -- the sandboxed script's own environment
  const raw = process.env.VIGIL_EGRESS_PROXY;
  const original = globalThis.fetch;
  if (!raw || typeof original !== 'function') return;
  const proxy = new URL(raw);
  // Loading Node's fetch costs every process of the run; only a process that fetches pays it.
  let ready = false;
  globalThis.fetch = function fetch(input, init) {
    if (!ready) {
      ready = true;
      useProxy(original, proxy);
    }
    return original(input, init);
  };
}

compileCache();
install();
