import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsRequestSchema, type DnsRequest } from '#domain';
import { addDnsRecords, services, uniqueSuffix } from '#test-support';
import { runProbe } from './run.ts';
import { probeContext } from './test-helpers.ts';

const [server = '', port = ''] = services().DNS_SERVER.split(':');
const dynamic = `dyn-${uniqueSuffix()}.vigil.test`;
let removeRecords: () => Promise<void> = async () => {};

beforeAll(async () => {
  removeRecords = await addDnsRecords([
    { name: dynamic, address: '192.0.2.77' },
    { name: dynamic, address: '2001:db8::77' },
  ]);
  // dnsmasq re-reads the hosts directory on an inotify event: wait until it answers.
  for (let i = 0; i < 100; i++) {
    const { result } = await runProbe(dns({ query: dynamic }), probeContext());
    if (!result.hasFailures) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`dnsmasq did not pick up ${dynamic}`);
});
afterAll(() => removeRecords());

function dns(request: Partial<DnsRequest>) {
  return {
    checkType: 'DNS' as const,
    request: dnsRequestSchema.parse({ nameServer: server, port: Number(port), ...request }),
  };
}

describe('DNS probe against dnsmasq', () => {
  for (const protocol of ['UDP', 'TCP'] as const) {
    it(`A records written at run time, over ${protocol}`, async () => {
      const { result, assertions } = await runProbe(
        dns({
          query: dynamic,
          protocol,
          assertions: [
            { source: 'RESPONSE_CODE', property: '', comparison: 'EQUALS', target: 'NOERROR' },
            { source: 'TEXT_ANSWER', property: '', comparison: 'CONTAINS', target: '\tIN\tA\t192.0.2.77' },
            { source: 'JSON_ANSWER', property: '$.Answer[0].data', comparison: 'EQUALS', target: '192.0.2.77' },
            { source: 'RESPONSE_TIME', property: '', comparison: 'LESS_THAN', target: '10000' },
          ],
        }),
        probeContext(),
      );
      expect(assertions.map((a) => a.passed)).toEqual([true, true, true, true]);
      expect(result).toMatchObject({ checkType: 'DNS', hasFailures: false });
    });
  }

  it('AAAA, CNAME, MX, NS, TXT and SOA from the fixture zone', async () => {
    const cases: Array<[DnsRequest['recordType'], string, string]> = [
      ['AAAA', dynamic, '2001:db8::77'],
      ['CNAME', 'alias.vigil.test', 'www.vigil.test.'],
      ['MX', 'vigil.test', '10 mail.vigil.test.'],
      ['NS', 'vigil.test', 'ns1.vigil.test.'],
      ['TXT', 'txt.vigil.test', '"hello from vigil" "second string"'],
      ['SOA', 'vigil.test', 'ns1.vigil.test. hostmaster.vigil.test. 2026010101'],
    ];
    for (const [recordType, query, expected] of cases) {
      const { result, assertions } = await runProbe(
        dns({
          query,
          recordType,
          assertions: [{ source: 'TEXT_ANSWER', property: '', comparison: 'CONTAINS', target: expected }],
        }),
        probeContext(),
      );
      expect({ recordType, passed: assertions[0]?.passed, actual: assertions[0]?.actual }).toMatchObject({
        recordType,
        passed: true,
      });
      expect(result.hasFailures).toBe(false);
    }
  });

  it('NXDOMAIN and REFUSED are response codes to assert on; without assertions they fail the run', async () => {
    const nx = await runProbe(
      dns({
        query: `missing-${uniqueSuffix()}.vigil.test`,
        assertions: [{ source: 'RESPONSE_CODE', property: '', comparison: 'EQUALS', target: 'NXDOMAIN' }],
      }),
      probeContext(),
    );
    expect(nx.result.hasFailures).toBe(false);
    const refused = await runProbe(dns({ query: 'example.com' }), probeContext());
    expect(refused.result).toMatchObject({ hasFailures: true, errorMessage: 'response code REFUSED' });
  });

  it('fails JSON_ANSWER and TEXT_ANSWER assertions with the actual answer', async () => {
    const { result } = await runProbe(
      dns({
        query: 'www.vigil.test',
        assertions: [
          { source: 'JSON_ANSWER', property: '$.Answer[0].data', comparison: 'EQUALS', target: '192.0.2.99' },
          { source: 'TEXT_ANSWER', property: '', comparison: 'NOT_CONTAINS', target: '192.0.2.10' },
          { source: 'RESPONSE_CODE', property: '', comparison: 'EQUALS', target: 'SERVFAIL' },
        ],
      }),
      probeContext(),
    );
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('JSON_ANSWER $.Answer[0].data EQUALS "192.0.2.99" (actual 192.0.2.10)');
    expect(result.errorMessage).toContain('RESPONSE_CODE EQUALS "SERVFAIL" (actual NOERROR)');
  });

  it('refuses a private nameServer without allowPrivate', async () => {
    const { result } = await runProbe(dns({ query: 'www.vigil.test' }), probeContext({ allowPrivate: false }));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('VIGIL_ALLOW_PRIVATE_TARGETS');
  });
});
