import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequestSchema, type ApiRequest } from '#domain';
import { runProbe } from './run.ts';
import { createScrubber, SCRUBBED, secretForms, substitute } from './secrets.ts';
import { httpServer, probeContext, type TestServer } from './test-helpers.ts';

describe('variables and secrets', () => {
  it('substitutes {{VAR}} and leaves unknown names as written', () => {
    expect(substitute('https://{{HOST}}/x?t={{ TOKEN }}&u={{UNKNOWN}}', { HOST: 'a.test', TOKEN: 's3' })).toBe(
      'https://a.test/x?t=s3&u={{UNKNOWN}}',
    );
  });

  it('scrubs secrets, including their URL-encoded and JSON-escaped forms', () => {
    const scrub = createScrubber(['p@ss word/"x"', 'short', '']);
    const text = `a p@ss word/"x" b ${encodeURIComponent('p@ss word/"x"')} c ${JSON.stringify('p@ss word/"x"')} short`;
    const out = scrub(text);
    expect(out).not.toContain('p@ss');
    expect(out).not.toContain('short');
    expect(out).not.toContain(encodeURIComponent('p@ss word/"x"'));
    expect(out.split(SCRUBBED).length - 1).toBeGreaterThanOrEqual(4);
  });

  it('leaves text alone without secrets', () => {
    expect(createScrubber([])('nothing to hide')).toBe('nothing to hide');
  });

  it('scrubs form encoding, lower-case percent hex, lower case and base64 at any alignment', () => {
    const secret = 'Tok en+&=/é';
    const scrub = createScrubber([secret]);
    const forms = [
      new URLSearchParams({ q: secret }).toString().slice(2),
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
      secret.toLowerCase(),
      Buffer.from(`user:${secret}`).toString('base64'),
      Buffer.from(`xy${secret}`).toString('base64'),
      Buffer.from(`x${secret}`).toString('base64'),
    ];
    for (const form of forms) expect(scrub(`[${form}]`), form).not.toContain(form.slice(0, -3).slice(3));
  });

  it('masks exactly what a plain search for every form would mask (the one-pattern trie agrees)', () => {
    /** Every position where some form starts, with the longest form there; overlapping runs merged. */
    const reference = (text: string, secrets: string[]) => {
      const forms = [...new Set(secrets.flatMap(secretForms))];
      let out = '';
      let kept = 0;
      let end = -1;
      for (let at = 0; at < text.length; at++) {
        const length = Math.max(0, ...forms.filter((form) => text.startsWith(form, at)).map((form) => form.length));
        if (length === 0) continue;
        if (at < end) end = Math.max(end, at + length);
        else {
          if (end >= 0) out += SCRUBBED;
          out += text.slice(kept, at);
          end = at + length;
        }
        kept = end;
      }
      return (end >= 0 ? out + SCRUBBED : out) + text.slice(kept);
    };
    const chars = fc.constantFrom(...'abAB%2F/ +="\\é');
    const word = fc.array(chars, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.array(chars, { maxLength: 60 }),
        (secrets, text) => {
          const joined = text.join('') + secrets.join('');
          expect(createScrubber(secrets)(joined)).toBe(reference(joined, secrets));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('masks every character of overlapping secrets', () => {
    expect(createScrubber(['abcd', 'cdef'])('xabcdefx')).toBe(`x${SCRUBBED}x`);
  });

  it('scrubs before it shortens: a secret across the cut leaves no prefix', () => {
    const secret = 'SECRETVALUE123';
    const scrub = createScrubber([secret]);
    for (let at = 190; at <= 200; at++) {
      const out = scrub.shorten(`${'x'.repeat(at)}${secret}tail`, 200);
      expect(out).not.toMatch(/xS|SE/);
    }
  });
});

// The four leaks of issue 21 item 2, each against a real target that echoes the request.
describe('secrets in runs against an echoing target', () => {
  let echo: TestServer;
  beforeAll(async () => {
    echo = await httpServer((req, res, body) => {
      res.setHeader('content-type', 'text/plain');
      res.end(`${req.method} ${req.url}\n${req.rawHeaders.join('\n')}\n\n${body}`);
    });
  });
  afterAll(() => echo.close());

  const secret = 'Pa55 w+rd&x=Y/é';
  const ctx = probeContext({ variables: { S: secret, PAD: '' }, secretValues: [secret] });
  const api = (request: Partial<ApiRequest>) => ({
    checkType: 'API' as const,
    request: apiRequestSchema.parse({
      url: `${echo.url}/echo`,
      assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'never', property: '' }],
      ...request,
    }),
  });
  const leaks = (outcome: unknown, forms: string[]) => {
    const text = JSON.stringify(outcome);
    return forms.filter((form) => text.includes(form) || text.includes(JSON.stringify(form).slice(1, -1)));
  };

  it('basic auth: the base64 of user:secret is scrubbed', async () => {
    // 'alice1:' is 7 bytes, so the secret's own base64 is not aligned inside the credential's.
    const outcome = await runProbe(api({ basicAuth: { username: 'alice1', password: '{{S}}' } }), ctx);
    expect(outcome.assertions[0]?.actual).toContain('Basic ');
    expect(leaks(outcome, [Buffer.from(`alice1:${secret}`).toString('base64')])).toEqual([]);
  });

  it('query parameters: the form-encoded secret is scrubbed from the error', async () => {
    const outcome = await runProbe(
      api({ url: 'http://127.0.0.1:1/x', queryParameters: [{ key: 'q', value: '{{S}}' }] }),
      ctx,
    );
    expect(outcome.result.errorMessage).toContain('127.0.0.1:1');
    expect(leaks(outcome, [new URLSearchParams({ q: secret }).toString().slice(2)])).toEqual([]);
  });

  it('truncation: a secret across the 200-character cut leaks no prefix', async () => {
    // The echo starts with the request line, so the padded path puts the secret across the cut.
    const inPath = new URL(`http://h/${secret}`).pathname.slice(1);
    for (let pad = 180; pad <= 196; pad += 2) {
      const outcome = await runProbe(api({ url: `${echo.url}/e/${'Z'.repeat(pad)}{{S}}` }), ctx);
      const actual = outcome.assertions[0]?.actual ?? '';
      expect(actual.endsWith('…')).toBe(true);
      const visible = actual.slice(0, -1);
      for (let k = 1; k < inPath.length; k++)
        expect(visible.endsWith(`Z${inPath.slice(0, k)}`), `pad ${pad}`).toBe(false);
    }
  });

  it('hostname: a secret used as a hostname is scrubbed lower-cased', async () => {
    const host = 'SecretHostNAME';
    const outcome = await runProbe(
      {
        checkType: 'URL',
        request: { url: `http://{{H}}.invalid/`, followRedirects: true, skipSSL: false, assertions: [] },
      },
      probeContext({ variables: { H: host }, secretValues: [host] }),
    );
    expect(outcome.result.hasFailures).toBe(true);
    expect(leaks(outcome, [host, host.toLowerCase()])).toEqual([]);
  });
});
