import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { domainToASCII } from 'node:url';
import dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiRequestSchema,
  dnsRequestSchema,
  tcpRequestSchema,
  urlRequestSchema,
  type ApiRequest,
  type Assertion,
} from '#domain';
import { runProbe, type ProbeContext, type ProbeOutcome, type RunnableDefinition } from '#probes';

// Issue 21 item 2: whatever a secret goes into, and whatever the runner makes of it on the way
// (percent, form, JSON, base64, lower case), no form of it comes back in a result, an assertion's
// actual value or an error, from targets that echo everything they got, nor across the cut at 200.

const servers: Array<{ close(done: () => void): unknown }> = [];
let httpBase = '';
let tcpPort = 0;
let dnsPort = 0;

beforeAll(async () => {
  const web = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const line = `${req.method} ${req.url} HTTP/${req.httpVersion}`;
      res.setHeader('x-echo-line', line);
      if (req.headers.authorization) res.setHeader('x-echo-authorization', req.headers.authorization);
      if (req.url?.startsWith('/j')) {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ line, headers: req.headers, body }));
      }
      res.end(`${line}\n${req.rawHeaders.join('\n')}\n\n${body}`);
    });
  });
  const tcp = net.createServer((socket) => {
    // Closing after the echo ends the reply at once, instead of after the probe's idle wait.
    socket.on('data', (chunk) => socket.end(chunk));
    socket.on('error', () => {});
  });
  const udp = dgram.createSocket('udp4');
  udp.on('message', (message, remote) => {
    try {
      const query = dnsPacket.decode(message);
      const [question] = query.questions ?? [];
      if (!question) return;
      const answers = [
        { type: 'TXT' as const, name: question.name, ttl: 1, class: 'IN' as const, data: question.name },
      ];
      const reply = dnsPacket.encode({ type: 'response', id: query.id ?? 0, questions: [question], answers });
      udp.send(reply, remote.port, remote.address);
    } catch {
      // not a DNS query
    }
  });
  const listen = (server: net.Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
    );
  httpBase = `http://127.0.0.1:${await listen(web)}`;
  tcpPort = await listen(tcp);
  dnsPort = await new Promise<number>((resolve) => udp.bind(0, '127.0.0.1', () => resolve(udp.address().port)));
  servers.push(
    { close: (done) => (web.closeAllConnections(), web.close(done)) },
    { close: (done) => tcp.close(done) },
    { close: (done) => udp.close(done) },
  );
});
afterAll(async () => {
  for (const server of servers) await new Promise<void>((resolve) => server.close(resolve));
});

// Characters that change under some encoding. Left out: '*' (the mask itself), 'Z' and 'z' (the
// padding that puts a secret across the cut) and '#' (the fragment is never sent, so a target only
// ever sees the part before it: a prefix no scrubber can tell from other text).
const ALPHABET = [...'aBcXy09-_.~', ...' +&=/?@:;,%"\'\\<>{}|^`[]$!()', '\t', 'é', 'ß', 'İ', '日本', '😀'];
const secretArb = fc
  .array(fc.constantFrom(...ALPHABET), { minLength: 3, maxLength: 20 })
  .map((parts) => parts.join(''));

const never = (source: Assertion['source'], property = ''): Assertion => ({
  source,
  property,
  comparison: 'EQUALS',
  target: 'never-equal',
});
const apiAssertions = [never('TEXT_BODY'), never('HEADERS'), never('STATUS_CODE')];
const api = (request: Partial<ApiRequest>, assertions = apiAssertions): RunnableDefinition => ({
  checkType: 'API',
  request: apiRequestSchema.parse({ url: `${httpBase}/e`, assertions, ...request }),
});
const url = (target: string): RunnableDefinition => ({
  checkType: 'URL',
  request: urlRequestSchema.parse({ url: target, assertions: [never('STATUS_CODE')] }),
});

/** Every place a definition can hold a secret, against an echoing target or one that fails. */
function placements(): Array<[string, RunnableDefinition]> {
  const dead = 'http://127.0.0.1:1';
  return [
    ['API path', api({ url: `${httpBase}/p/{{PAD}}{{S}}` })],
    [
      'API path, JSON echo',
      api({ url: `${httpBase}/j/{{S}}` }, [never('JSON_BODY', '$'), never('JSON_BODY', '$.line')]),
    ],
    ['API query in URL', api({ url: `${httpBase}/q?a={{S}}` })],
    ['API query parameter value', api({ queryParameters: [{ key: 'k', value: '{{S}}' }] })],
    ['API query parameter key', api({ queryParameters: [{ key: 'k{{S}}', value: 'v' }] })],
    ['API query parameter, failing target', api({ url: `${dead}/x`, queryParameters: [{ key: 'k', value: '{{S}}' }] })],
    ['API path, failing target', api({ url: `${dead}/x/{{S}}` })],
    ['API header', api({ headers: [{ key: 'X-Secret', value: 'v {{S}}' }] })],
    [
      'API header, JSON echo',
      api({ url: `${httpBase}/j`, headers: [{ key: 'X-Secret', value: '{{S}}' }] }, [never('TEXT_BODY')]),
    ],
    ['basic auth password', api({ basicAuth: { username: 'alice1', password: '{{S}}' } })],
    ['basic auth user', api({ basicAuth: { username: '{{S}}', password: 'pw' } })],
    [
      'basic auth, JSON echo',
      api({ url: `${httpBase}/j`, basicAuth: { username: 'alice1', password: '{{S}}' } }, [never('TEXT_BODY')]),
    ],
    ['raw body', api({ method: 'POST', bodyType: 'RAW', body: '{{S}}' })],
    [
      'JSON body, JSON echo',
      api({ url: `${httpBase}/j`, method: 'POST', bodyType: 'JSON', body: '{"s":"{{S}}"}' }, [
        never('TEXT_BODY'),
        never('JSON_BODY', '$.body'),
      ]),
    ],
    ['form body', api({ method: 'POST', bodyType: 'FORM', body: 'a={{S}}' })],
    ['API hostname', api({ url: 'http://{{S}}:1/' })],
    ['API hostname label', api({ url: 'http://x{{S}}.invalid:1/' })],
    ['URL path', url(`${httpBase}/p/{{S}}`)],
    ['URL hostname', url('http://{{S}}/')],
    ['URL userinfo', url(`http://u:{{S}}@127.0.0.1:1/`)],
    ['TCP hostname', { checkType: 'TCP', request: tcpRequestSchema.parse({ hostname: '{{S}}', port: 1 }) }],
    [
      'TCP data',
      {
        checkType: 'TCP',
        request: tcpRequestSchema.parse({
          hostname: '127.0.0.1',
          port: tcpPort,
          data: 'hello {{S}}',
          assertions: [never('RESPONSE_DATA')],
        }),
      },
    ],
    [
      'DNS query',
      {
        checkType: 'DNS',
        request: dnsRequestSchema.parse({
          query: '{{S}}',
          recordType: 'TXT',
          nameServer: '127.0.0.1',
          port: dnsPort,
          assertions: [never('TEXT_ANSWER'), never('JSON_ANSWER', '$')],
        }),
      },
    ],
    [
      'DNS nameServer',
      { checkType: 'DNS', request: dnsRequestSchema.parse({ query: 'a.test', nameServer: '{{S}}', port: dnsPort }) },
    ],
  ];
}

const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
const attempt = (make: () => string) => {
  try {
    return make();
  } catch {
    return '';
  }
};

/** The forms of a secret this test looks for, written here rather than taken from the scrubber. */
function formsOf(secret: string): string[] {
  const percent = [
    encodeURIComponent(secret),
    attempt(() => encodeURI(secret)),
    new URLSearchParams({ k: secret }).toString().slice(2),
    attempt(() => new URL(`http://h/p/${secret}`).href.slice('http://h/p/'.length)),
    attempt(() => new URL(`http://h/q?a=${secret}`).href.slice('http://h/q?a='.length)),
  ];
  const forms = [
    secret,
    secret.toLowerCase(),
    domainToASCII(secret),
    ...percent,
    ...percent.map(lowerHex),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(`alice1:${secret}`).toString('base64'),
    Buffer.from(`${secret}:pw`).toString('base64'),
  ].filter((form) => form.length >= 3);
  return [...new Set([...forms, ...forms.map((form) => JSON.stringify(form).slice(1, -1))])];
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) strings(item, out);
  return out;
}

function leaks(outcome: ProbeOutcome, secret: string): string[] {
  const texts = strings(outcome);
  return formsOf(secret).filter((form) => texts.some((text) => text.includes(form)));
}

const RUNS = 30;

describe('no form of a secret comes back from a run', () => {
  it('holds for random secrets in every place of a definition', async () => {
    const runs: string[] = [];
    await fc.assert(
      fc.asyncProperty(secretArb, fc.integer({ min: 160, max: 200 }), async (secret, pad) => {
        const ctx: ProbeContext = {
          resultId: '6f1f0b8e-0d3b-4a59-9a55-0c7c1a9e0001',
          accountId: '6f1f0b8e-0d3b-4a59-9a55-0c7c1a9e0002',
          checkId: '6f1f0b8e-0d3b-4a59-9a55-0c7c1a9e0003',
          location: 'local',
          startedAt: new Date('2026-01-02T03:04:05.000Z'),
          degradedResponseTime: 10_000,
          maxResponseTime: 20_000,
          variables: { S: secret, PAD: 'Z'.repeat(pad) },
          secretValues: [secret],
          allowPrivate: true,
          timeoutMs: 5_000,
        };
        for (const [where, definition] of placements()) {
          const outcome = await runProbe(definition, ctx);
          runs.push(where);
          expect(outcome.result.hasFailures, where).toBe(true);
          expect(leaks(outcome, secret), `${where}: ${JSON.stringify(secret)}`).toEqual([]);
          if (where === 'API path') {
            // The padded path puts the secret across the 200-character cut of TEXT_BODY's actual.
            const visible = (outcome.assertions[0]?.actual ?? '').replace(/…$/, '');
            const sent = attempt(() => new URL(`http://h/p/${secret}`).href.slice('http://h/p/'.length));
            for (const form of [secret, sent])
              for (let k = 1; k < form.length; k++)
                expect(visible.endsWith(`Z${form.slice(0, k)}`), `prefix of ${JSON.stringify(form)}`).toBe(false);
          }
        }
      }),
      // Found by this test: a trailing ? is an empty query, which is not sent.
      { numRuns: RUNS, examples: [['😀aaa😀a?', 165]] },
    );
    // Every placement ran in every run: the property was not vacuous.
    expect(runs.length).toBe(RUNS * placements().length);
  });
});
