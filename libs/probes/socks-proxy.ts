import net from 'node:net';
import { checkLiteral, guardedLookup } from './address.ts';

/**
 * A SOCKS5 proxy on loopback that a browser context sends every connection through, so the
 * address policy holds for navigation, redirects, sub-resources and WebSockets alike: Chromium
 * passes host names to a SOCKS5 proxy unresolved, and the proxy resolves and judges them as it
 * connects (DNS rebinding included). One proxy per run, so refusals belong to that run.
 */
export interface PolicyProxy {
  server: string;
  /** Every refused connection, as `refused: … (…VIGIL_ALLOW_PRIVATE_TARGETS…)`, by host. */
  refusals: Map<string, string>;
  /**
   * Why a permitted connection failed, in Chromium's words, by host: through a SOCKS proxy
   * Chromium only sees ERR_SOCKS_CONNECTION_FAILED, which would hide a refused port or a bad name.
   */
  failures: Map<string, string>;
  close(): Promise<void>;
}

const CHROMIUM_NAMES: Record<string, string> = {
  ECONNREFUSED: 'net::ERR_CONNECTION_REFUSED',
  ECONNRESET: 'net::ERR_CONNECTION_RESET',
  ETIMEDOUT: 'net::ERR_CONNECTION_TIMED_OUT',
  EHOSTUNREACH: 'net::ERR_ADDRESS_UNREACHABLE',
  ENETUNREACH: 'net::ERR_ADDRESS_UNREACHABLE',
  ENOTFOUND: 'net::ERR_NAME_NOT_RESOLVED',
  EAI_AGAIN: 'net::ERR_NAME_NOT_RESOLVED',
};

const REPLY = {
  ok: 0x00,
  failure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  refused: 0x05,
  commandNotSupported: 0x07,
  addressNotSupported: 0x08,
};

const reply = (code: number) => Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);

/** The target of a CONNECT request, or how many more bytes are needed. */
function parseRequest(
  buffer: Buffer,
): { host: string; port: number; length: number } | { need: number } | { code: number } {
  if (buffer.length < 5) return { need: 5 };
  if (buffer[0] !== 0x05) return { code: REPLY.failure };
  if (buffer[1] !== 0x01) return { code: REPLY.commandNotSupported };
  const type = buffer[3];
  let host: string;
  let offset: number;
  if (type === 0x01) {
    if (buffer.length < 10) return { need: 10 };
    host = [...buffer.subarray(4, 8)].join('.');
    offset = 8;
  } else if (type === 0x03) {
    const length = buffer[4] as number;
    if (buffer.length < 7 + length) return { need: 7 + length };
    host = buffer.subarray(5, 5 + length).toString('latin1');
    offset = 5 + length;
  } else if (type === 0x04) {
    if (buffer.length < 22) return { need: 22 };
    const words = Array.from({ length: 8 }, (_, i) => buffer.readUInt16BE(4 + i * 2).toString(16));
    host = words.join(':');
    offset = 20;
  } else {
    return { code: REPLY.addressNotSupported };
  }
  return { host, port: buffer.readUInt16BE(offset), length: offset + 2 };
}

function handle(
  client: net.Socket,
  refusals: Map<string, string>,
  failures: Map<string, string>,
  sockets: Set<net.Socket>,
  allowPrivate: boolean,
): void {
  let buffer = Buffer.alloc(0);
  let stage: 'greeting' | 'request' | 'piping' = 'greeting';
  client.on('error', () => client.destroy());
  const onData = (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (stage === 'greeting') {
      if (buffer.length < 2 || buffer.length < 2 + (buffer[1] as number)) return;
      if (buffer[0] !== 0x05) return client.destroy();
      buffer = buffer.subarray(2 + (buffer[1] as number));
      client.write(Buffer.from([0x05, 0x00])); // no authentication
      stage = 'request';
    }
    if (stage !== 'request') return;
    const parsed = parseRequest(buffer);
    if ('need' in parsed) return;
    if ('code' in parsed) return void client.end(reply(parsed.code));
    stage = 'piping';
    client.off('data', onData);
    client.pause();
    const rest = buffer.subarray(parsed.length);
    // A literal address never reaches the lookup, so it is judged here.
    const literal = checkLiteral(parsed.host, allowPrivate);
    if (literal) {
      refusals.set(parsed.host, literal.message);
      return void client.end(reply(REPLY.notAllowed));
    }
    const upstream = net.connect({
      host: parsed.host,
      port: parsed.port,
      lookup: guardedLookup(allowPrivate) as unknown as net.LookupFunction,
    });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write(reply(REPLY.ok));
      if (rest.length > 0) upstream.write(rest);
      upstream.pipe(client);
      client.pipe(upstream);
      client.resume();
    });
    upstream.once('error', (error: Error) => {
      if (connected) return void client.destroy();
      if (error.name === 'AddressRefused') refusals.set(parsed.host, error.message);
      else {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        failures.set(parsed.host, CHROMIUM_NAMES[code] ?? (code || 'connection failed'));
      }
      const code = error.name === 'AddressRefused' ? REPLY.notAllowed : REPLY.refused;
      if (client.writable) client.end(reply(code));
      client.destroy();
    });
    client.once('close', () => upstream.destroy());
  };
  client.on('data', onData);
}

/**
 * With `allowPrivate` the proxy still refuses cloud metadata addresses, which the address policy
 * refuses whatever the setting, so a browser gets the same policy as the other probes.
 */
export async function startPolicyProxy(allowPrivate = false): Promise<PolicyProxy> {
  const refusals = new Map<string, string>();
  const failures = new Map<string, string>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    handle(client, refusals, failures, sockets, allowPrivate);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    server: `socks5://127.0.0.1:${port}`,
    refusals,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
