import { getServers } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsRequestSchema, type DnsRequest } from '#domain';
import { dnsEchoServer, type TestDnsServer } from './dns-test-server.ts';
import { runDns } from './dns-probe.ts';
import { runProbe } from './run.ts';
import { probeContext } from './test-helpers.ts';

// Issue 21 item 4: the query goes where the definition says, asks a DNS name, and errors never
// show the system resolver's address.
let server: TestDnsServer;
beforeAll(async () => {
  server = await dnsEchoServer();
});
afterAll(() => server.close());

const dns = (request: Partial<DnsRequest>) => ({
  checkType: 'DNS' as const,
  request: dnsRequestSchema.parse({ nameServer: server.address, port: server.port, recordType: 'TXT', ...request }),
});
const resolverAddresses = () => getServers().map((entry) => entry.replace(/^\[|\]?(:\d+)?$/g, ''));

describe('DNS probe against a local DNS server', () => {
  it('asks the nameServer on its port and asserts on the answer', async () => {
    const { result, assertions } = await runProbe(
      dns({
        query: '_dmarc.Example.test',
        assertions: [
          { source: 'TEXT_ANSWER', property: '', comparison: 'CONTAINS', target: 'asked _dmarc.Example.test' },
        ],
      }),
      probeContext(),
    );
    expect(assertions[0]?.passed).toBe(true);
    expect(result.hasFailures).toBe(false);
  });

  it('refuses a stored definition with a port but no nameServer, without asking anyone', async () => {
    // Written before the input rule: the schema used to accept it, so stored checks may have it.
    const stored = { checkType: 'DNS' as const, request: { ...dns({ query: 'a.test' }).request, port: server.port } };
    delete (stored.request as { nameServer?: string }).nameServer;
    const { result } = await runProbe(stored, probeContext({ timeoutMs: 3000 }));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toMatch(/port .*nameServer/);
    expect(result.errorMessage).not.toMatch(/timed out/);
    for (const address of resolverAddresses()) expect(result.errorMessage).not.toContain(address);
  });

  it('refuses query names that are not DNS names before sending anything', async () => {
    const before = server.questions.length;
    for (const query of [
      'a.test\r\nGET / HTTP/1.1',
      'a\u0000.test',
      'a b.test',
      `${'a'.repeat(64)}.test`,
      `${'abcdefghi.'.repeat(25)}abcd`,
      'a..test',
    ]) {
      const { result } = await runProbe(dns({ query: '{{Q}}' }), probeContext({ variables: { Q: query } }));
      expect(result.hasFailures, JSON.stringify(query)).toBe(true);
      expect(result.errorMessage).toMatch(/query/);
    }
    expect(server.questions.slice(before)).toEqual([]);
  });

  it('sends the usual forms, an IDN as its A-label', async () => {
    const before = server.questions.length;
    for (const query of ['_sip._tcp.example.test', 'example.test.', '4.3.2.1.in-addr.arpa', 'münchen.test', '.']) {
      const { result } = await runProbe(dns({ query }), probeContext());
      expect(result.hasFailures, query).toBe(false);
    }
    expect(server.questions.slice(before)).toEqual([
      '_sip._tcp.example.test',
      'example.test',
      '4.3.2.1.in-addr.arpa',
      'xn--mnchen-3ya.test',
      '.',
    ]);
  });

  it('never prints the system resolver address in an error', async () => {
    const aborted = AbortSignal.abort(new Error('stopped'));
    const raw = await runDns(dnsRequestSchema.parse({ query: 'www.example.test' }), {}, true, aborted);
    expect(raw.error).toBeDefined();
    expect(raw.error).toContain('system resolver');
    for (const address of resolverAddresses()) expect(raw.error).not.toContain(address);
  });

  it('refuses a cloud metadata nameServer even with allowPrivate', async () => {
    const { result } = await runProbe(
      dns({ query: 'a.test', nameServer: '169.254.169.254', port: 53 }),
      probeContext({ allowPrivate: true, timeoutMs: 3000 }),
    );
    expect(result.errorMessage).toContain('cloud metadata');
  });
});
