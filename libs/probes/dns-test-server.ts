import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

// Test-only (not exported from index.ts): a UDP DNS server that answers every question with a TXT
// record holding the name asked and an A record, and records every question it got.

export interface TestDnsServer {
  address: string;
  port: number;
  questions: string[];
  close(): Promise<void>;
}

export function dnsEchoServer(): Promise<TestDnsServer> {
  const socket = dgram.createSocket('udp4');
  const questions: string[] = [];
  socket.on('message', (message, remote) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const [question] = query.questions ?? [];
    if (!question) return;
    questions.push(question.name);
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: [question],
      answers: [
        { type: 'TXT', name: question.name, ttl: 60, class: 'IN', data: [`asked ${question.name}`] },
        { type: 'A', name: question.name, ttl: 60, class: 'IN', data: '192.0.2.1' },
      ],
    });
    socket.send(reply, remote.port, remote.address);
  });
  return new Promise((resolve) => {
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address() as AddressInfo;
      resolve({
        address: '127.0.0.1',
        port,
        questions,
        close: () => new Promise<void>((done) => socket.close(() => done())),
      });
    });
  });
}
