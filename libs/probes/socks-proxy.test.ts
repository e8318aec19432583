import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyProxy, type PolicyProxy } from './socks-proxy.ts';

let proxy: PolicyProxy;
let target: net.Server;
let targetPort = 0;

beforeAll(async () => {
  proxy = await startPolicyProxy();
  target = net.createServer((socket) => socket.end('hello'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetPort = (target.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => target.close(resolve));
});

/** A SOCKS5 CONNECT by name, as Chromium sends it; resolves with the reply code. */
function connectThrough(host: string, port: number, through: PolicyProxy = proxy): Promise<number> {
  const proxyPort = Number(new URL(through.server).port);
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxyPort, '127.0.0.1');
    let stage = 0;
    socket.on('error', reject);
    socket.on('data', (data) => {
      if (stage === 0) {
        expect([...data]).toEqual([5, 0]);
        stage = 1;
        const name = Buffer.from(host, 'latin1');
        const request = Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.alloc(2)]);
        request.writeUInt16BE(port, request.length - 2);
        socket.write(request);
      } else {
        resolve(data[1] as number);
        socket.destroy();
      }
    });
    socket.write(Buffer.from([5, 1, 0]));
  });
}

describe('SOCKS5 policy proxy', () => {
  it('refuses a name that resolves to loopback and records why', async () => {
    expect(await connectThrough('localhost', targetPort)).toBe(0x02);
    expect(proxy.refusals.get('localhost')).toMatch(/loopback.*VIGIL_ALLOW_PRIVATE_TARGETS/);
  });

  it('refuses a literal private address', async () => {
    expect(await connectThrough('127.0.0.1', targetPort)).toBe(0x02);
    expect(await connectThrough('10.1.2.3', 80)).toBe(0x02);
    expect(proxy.refusals.get('10.1.2.3')).toContain('private');
  });

  it('with private targets allowed, still refuses cloud metadata addresses', async () => {
    const open = await startPolicyProxy(true);
    try {
      const through = (host: string, port: number) => connectThrough(host, port, open);
      expect(await through('127.0.0.1', targetPort)).toBe(0x00);
      expect(await through('localhost', targetPort)).toBe(0x00);
      expect(await through('169.254.169.254', 80)).toBe(0x02);
      expect(await through('2852039166', 80)).toBe(0x02);
      expect(open.refusals.get('169.254.169.254')).toContain('cloud metadata');
    } finally {
      await open.close();
    }
  });
});
