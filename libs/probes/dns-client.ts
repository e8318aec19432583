import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import net from 'node:net';
import dnsPacket, { type DecodedPacket, type RecordType } from 'dns-packet';

export interface DnsQuery {
  name: string;
  type: RecordType;
  server: string;
  port: number;
  protocol: 'UDP' | 'TCP';
  signal: AbortSignal;
}

/** UDP queries are sent again after this long without an answer (packets get lost). */
const UDP_RESEND_MS = 1000;
const TCP_REPLY_CAP = 65_535 + 2;

function queryPacket(name: string, type: RecordType, id: number) {
  return {
    type: 'query' as const,
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type, name, class: 'IN' as const }],
  };
}

function abortable<T>(
  signal: AbortSignal,
  start: (settle: (error: unknown, value?: T) => void) => () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let cleanup = () => {};
    let settled = false;
    const settle = (error: unknown, value?: T) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      cleanup();
      if (error) reject(error);
      else resolve(value as T);
    };
    const onAbort = () => settle(signal.reason ?? new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    cleanup = start(settle);
  });
}

function overUdp(query: DnsQuery, id: number): Promise<DecodedPacket> {
  return abortable(query.signal, (settle) => {
    const socket = dgram.createSocket(net.isIPv6(query.server) ? 'udp6' : 'udp4');
    const message = dnsPacket.encode(queryPacket(query.name, query.type, id));
    const send = () => socket.send(message, query.port, query.server, (error) => error && settle(error));
    socket.on('error', (error) => settle(error));
    socket.on('message', (reply, remote) => {
      // Only the server asked, and only the answer to this query, count.
      if (remote.port !== query.port) return;
      try {
        const packet = dnsPacket.decode(reply);
        if (packet.id === id) settle(null, packet);
      } catch (error) {
        settle(new Error(`malformed DNS reply: ${(error as Error).message}`));
      }
    });
    const resend = setInterval(send, UDP_RESEND_MS);
    send();
    return () => {
      clearInterval(resend);
      socket.close();
    };
  });
}

function overTcp(query: DnsQuery, id: number): Promise<DecodedPacket> {
  return abortable(query.signal, (settle) => {
    const socket = net.connect({ host: query.server, port: query.port });
    let buffered = Buffer.alloc(0);
    socket.once('connect', () => socket.write(dnsPacket.streamEncode(queryPacket(query.name, query.type, id))));
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length > TCP_REPLY_CAP) return settle(new Error('DNS reply over TCP is too long'));
      if (buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      try {
        const packet = dnsPacket.streamDecode(buffered) as DecodedPacket;
        settle(packet.id === id ? null : new Error('DNS reply over TCP answers another query'), packet);
      } catch (error) {
        settle(new Error(`malformed DNS reply: ${(error as Error).message}`));
      }
    });
    socket.once('end', () => settle(new Error('the DNS server closed the connection without an answer')));
    socket.once('error', (error) => settle(error));
    return () => socket.destroy();
  });
}

/** One query, like dig: over UDP (again over TCP when the answer is truncated) or over TCP. */
export async function queryDns(query: DnsQuery): Promise<DecodedPacket & { rcode: string; protocol: 'UDP' | 'TCP' }> {
  const id = randomInt(0, 65_536);
  if (query.protocol === 'UDP') {
    const reply = await overUdp(query, id);
    if (!reply.flag_tc) return { ...reply, rcode: rcodeOf(reply), protocol: 'UDP' };
  }
  const reply = await overTcp(query, id);
  return { ...reply, rcode: rcodeOf(reply), protocol: 'TCP' };
}

function rcodeOf(packet: DecodedPacket): string {
  return (packet as DecodedPacket & { rcode?: string }).rcode ?? `RCODE${(packet.flags ?? 0) & 0xf}`;
}
