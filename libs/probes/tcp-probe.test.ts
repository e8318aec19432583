import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcpRequestSchema, type TcpRequest } from '#domain';
import { runProbe } from './run.ts';
import { probeContext } from './test-helpers.ts';

const servers: net.Server[] = [];
let echoPort = 0;
let echoPort6 = 0;
let bannerPort = 0;

function listen(host: string, onConnection: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer(onConnection);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
}

beforeAll(async () => {
  const echo = (socket: net.Socket) => {
    socket.on('data', (chunk) => socket.write(`echo:${chunk.toString()}`));
    socket.on('error', () => {});
  };
  echoPort = await listen('127.0.0.1', echo);
  echoPort6 = await listen('::1', echo);
  bannerPort = await listen('127.0.0.1', (socket) => socket.end('220 vigil.test ESMTP ready\r\n'));
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

const tcp = (request: Partial<TcpRequest>) => ({
  checkType: 'TCP' as const,
  request: tcpRequestSchema.parse({ hostname: '127.0.0.1', port: echoPort, ...request }),
});

describe('TCP probe against a real echo server', () => {
  it('sends data and asserts on the reply and the response time', async () => {
    const { result, assertions } = await runProbe(
      tcp({
        data: 'PING {{N}}',
        assertions: [
          { source: 'RESPONSE_DATA', property: '', comparison: 'EQUALS', target: 'echo:PING 7' },
          { source: 'RESPONSE_TIME', property: '', comparison: 'LESS_THAN', target: '10000' },
        ],
      }),
      probeContext({ variables: { N: '7' } }),
    );
    expect(assertions.map((a) => [a.passed, a.actual])).toEqual([
      [true, 'echo:PING 7'],
      [true, expect.any(String)],
    ]);
    expect(result).toMatchObject({ checkType: 'TCP', hasFailures: false });
    expect(result.timings).toMatchObject({ connection: expect.any(Number), data: expect.any(Number) });
    expect(result.statusCode).toBeUndefined();
  });

  it('fails when the reply does not match, naming the actual reply', async () => {
    const { result } = await runProbe(
      tcp({
        data: 'PING',
        assertions: [{ source: 'RESPONSE_DATA', property: '', comparison: 'CONTAINS', target: 'PONG' }],
      }),
      probeContext(),
    );
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('RESPONSE_DATA CONTAINS "PONG" (actual echo:PING)');
  });

  it('reads a banner without sending, and fails RESPONSE_TIME GREATER_THAN on a fast reply', async () => {
    const { assertions } = await runProbe(
      tcp({
        port: bannerPort,
        assertions: [
          { source: 'RESPONSE_DATA', property: '', comparison: 'CONTAINS', target: 'ESMTP' },
          { source: 'RESPONSE_TIME', property: '', comparison: 'GREATER_THAN', target: '60000' },
        ],
      }),
      probeContext(),
    );
    expect(assertions.map((a) => a.passed)).toEqual([true, false]);
  });

  it('connects over IPv6 when asked', async () => {
    const { result } = await runProbe(
      tcp({
        hostname: '::1',
        port: echoPort6,
        ipFamily: 'IPv6',
        data: 'six',
        assertions: [{ source: 'RESPONSE_DATA', property: '', comparison: 'EQUALS', target: 'echo:six' }],
      }),
      probeContext(),
    );
    expect(result.hasFailures).toBe(false);
  });

  it('fails on a refused connection and on a private target without allowPrivate', async () => {
    const closed = await runProbe(tcp({ port: 1 }), probeContext());
    expect(closed.result.hasFailures).toBe(true);
    expect(closed.result.errorMessage).toContain('ECONNREFUSED');
    for (const hostname of ['127.0.0.1', 'localhost']) {
      const refused = await runProbe(tcp({ hostname }), probeContext({ allowPrivate: false }));
      expect(refused.result.errorMessage).toContain('VIGIL_ALLOW_PRIVATE_TARGETS');
    }
  });

  it('scrubs a secret sent as data from the reply it echoes', async () => {
    const secret = 'tcp-S3CRET-value';
    const outcome = await runProbe(
      tcp({
        data: 'AUTH {{TOKEN}}',
        assertions: [{ source: 'RESPONSE_DATA', property: '', comparison: 'EQUALS', target: 'OK' }],
      }),
      probeContext({ variables: { TOKEN: secret }, secretValues: [secret] }),
    );
    expect(outcome.result.hasFailures).toBe(true);
    expect(outcome.assertions[0]?.actual).toBe('echo:AUTH ********');
    expect(JSON.stringify(outcome)).not.toContain(secret);
  });

  it('refuses cloud metadata addresses even with allowPrivate', async () => {
    for (const [hostname, ipFamily] of [
      ['169.254.169.254', 'IPv4'],
      ['2852039166', 'IPv4'],
      ['fd00:ec2::254', 'IPv6'],
    ] as const) {
      const { result } = await runProbe(
        tcp({ hostname, port: 80, ipFamily }),
        probeContext({ allowPrivate: true, timeoutMs: 3000 }),
      );
      expect(result.errorMessage, hostname).toContain('cloud metadata');
    }
  });
});
