import { describe, expect, it } from 'vitest';
import {
  checkResultJsonSchema,
  checkResultSchema,
  parseCheckResult,
  resultCheckTypes,
  type CheckResultInput,
} from './check-result.ts';

const base = {
  id: '0b9f3c2e-8d1a-4c6e-9f00-000000000001',
  accountId: '0b9f3c2e-8d1a-4c6e-9f00-0000000000a1',
  checkId: '0b9f3c2e-8d1a-4c6e-9f00-0000000000c1',
  startedAt: '2025-03-04T05:06:07.891Z',
  runLocation: 'eu-west-1',
  hasFailures: false,
  responseTime: 123.4,
} as const;

const samples: Record<(typeof resultCheckTypes)[number], CheckResultInput> = {
  API: {
    ...base,
    checkType: 'API',
    statusCode: 200,
    statusText: 'OK',
    timings: { wait: 1, dns: 2, tcp: 3, firstByte: 4, download: 5, total: 15, connection: 6, data: 7 },
    ssl: { daysRemaining: 42, domain: 'example.com' },
  },
  URL: { ...base, checkType: 'URL', statusCode: 301, isDegraded: true },
  BROWSER: {
    ...base,
    checkType: 'BROWSER',
    hasFailures: true,
    errorMessage: 'Timeout waiting for selector',
    pages: [
      { index: 0, url: 'https://example.com/', TTFB: 80, FCP: 300, LCP: 900, CLS: 0.05, TBT: 120, consoleErrors: 2 },
      { index: 1, url: 'https://example.com/login', networkErrors: 1, userScriptErrors: 1, documentErrors: 1 },
    ],
  },
  PLAYWRIGHT: { ...base, checkType: 'PLAYWRIGHT', pages: [] },
  HEARTBEAT: { ...base, checkType: 'HEARTBEAT', responseTime: 0, heartbeat: { status: 'LATE' } },
  MULTI_STEP: { ...base, checkType: 'MULTI_STEP', attempts: 3 },
  TCP: { ...base, checkType: 'TCP', timings: { connection: 12 } },
  DNS: { ...base, checkType: 'DNS', timings: { dns: 4.5 } },
};

function reject(input: unknown): string {
  const parsed = parseCheckResult(input);
  if (parsed.ok) throw new Error('expected a rejection');
  return parsed.message;
}

describe('check result v1', () => {
  it.each(resultCheckTypes)('accepts a valid %s result', (type) => {
    const parsed = parseCheckResult(samples[type]);
    expect(parsed).toMatchObject({ ok: true, value: { checkType: type } });
  });

  it('applies defaults', () => {
    const value = checkResultSchema.parse(samples.BROWSER);
    expect(value.isDegraded).toBe(false);
    expect(value.attempts).toBe(1);
    expect(value.pages?.[0]).toMatchObject({
      networkErrors: 0,
      userScriptErrors: 0,
      documentErrors: 0,
      consoleErrors: 2,
    });
  });

  it('normalises ids to lower case and startedAt to UTC', () => {
    const value = checkResultSchema.parse({
      ...samples.API,
      id: base.id.toUpperCase(),
      startedAt: '2025-03-04T07:06:07.891234+02:00',
    });
    expect(value.id).toBe(base.id);
    expect(value.startedAt).toBe('2025-03-04T05:06:07.891Z');
  });

  it('truncates free text from the monitored target instead of rejecting it', () => {
    const value = checkResultSchema.parse({
      ...samples.API,
      errorMessage: 'x'.repeat(10_000),
      statusText: '\uD800bad',
    });
    expect(value.errorMessage).toHaveLength(4096);
    expect(value.statusText).toBe('\uFFFDbad');
  });

  it.each([
    ['id', { ...samples.API, id: 'not-a-uuid' }],
    ['accountId', { ...samples.API, accountId: undefined }],
    ['checkId', { ...samples.API, checkId: 42 }],
    ['checkType', { ...samples.API, checkType: 'SMTP' }],
    ['startedAt', { ...samples.API, startedAt: '2025-03-04T05:06:07' }],
    ['startedAt', { ...samples.API, startedAt: '1999-12-31T23:59:59Z' }],
    ['runLocation', { ...samples.API, runLocation: '' }],
    ['runLocation', { ...samples.API, runLocation: 'x'.repeat(65) }],
    ['runLocation', { ...samples.API, runLocation: 'eu\nwest' }],
    ['hasFailures', { ...samples.API, hasFailures: 'false' }],
    ['responseTime', { ...samples.API, responseTime: -1 }],
    ['responseTime', { ...samples.API, responseTime: Number.NaN }],
    ['attempts', { ...samples.API, attempts: 0 }],
    ['attempts', { ...samples.API, attempts: 1.5 }],
    ['statusCode', { ...samples.API, statusCode: 42 }],
    ['statusCode', { ...samples.TCP, statusCode: 200 }],
    ['timings.dns', { ...samples.API, timings: { dns: -3 } }],
    ['timings.firstbyte', { ...samples.API, timings: { firstbyte: 3 } }],
    ['pages', { ...samples.API, pages: [] }],
    ['pages', { ...samples.BROWSER, pages: Array.from({ length: 51 }, (_, index) => ({ index, url: 'u' })) }],
    [
      'pages[1].LCP',
      {
        ...samples.BROWSER,
        pages: [
          { index: 0, url: 'a' },
          { index: 1, url: 'b', LCP: -1 },
        ],
      },
    ],
    ['pages[0].url', { ...samples.BROWSER, pages: [{ index: 0 }] }],
    [
      'pages[1].index',
      {
        ...samples.BROWSER,
        pages: [
          { index: 0, url: 'a' },
          { index: 0, url: 'b' },
        ],
      },
    ],
    ['pages[0].lcp', { ...samples.BROWSER, pages: [{ index: 0, url: 'a', lcp: 1 }] }],
    ['heartbeat', { ...samples.HEARTBEAT, heartbeat: undefined }],
    ['heartbeat', { ...samples.API, heartbeat: { status: 'LATE' } }],
    ['heartbeat.status', { ...samples.HEARTBEAT, heartbeat: { status: 'late' } }],
    ['ssl.daysRemaining', { ...samples.API, ssl: { daysRemaining: 1.5, domain: 'example.com' } }],
    ['ssl.domain', { ...samples.API, ssl: { daysRemaining: 3, domain: '' } }],
    ['responsetime', { ...samples.API, responsetime: 3 }],
  ])('rejects a bad %s and names it', (field, input) => {
    expect(reject(input)).toMatch(new RegExp(`(^|; )${field.replace(/[[\].]/g, '\\$&')}: `));
  });

  it("carries each assertion's outcome, bounded: 50 at most, echoed text cut, unknown sources refused", () => {
    const outcome = {
      source: 'JSON_BODY',
      property: '$.status',
      comparison: 'EQUALS',
      target: 'ok',
      passed: false,
      actual: 'x'.repeat(10_000),
      message: 'm'.repeat(10_000),
    } as const;
    const parsed = checkResultSchema.parse({ ...samples.API, assertions: [outcome, { ...outcome, passed: true }] });
    expect(parsed.assertions).toHaveLength(2);
    expect(parsed.assertions![0]!.actual).toHaveLength(256);
    expect(parsed.assertions![0]!.message).toHaveLength(512);
    expect(parsed.assertions![1]!.passed).toBe(true);
    expect(
      checkResultSchema.parse({
        ...samples.API,
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', passed: true }],
      }).assertions,
    ).toEqual([{ source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '', passed: true, actual: '' }]);
    expect(reject({ ...samples.API, assertions: Array.from({ length: 51 }, () => outcome) })).toMatch(/^assertions: /);
    expect(reject({ ...samples.API, assertions: [{ ...outcome, source: 'BODY' }] })).toMatch(
      /^assertions\[0\]\.source: /,
    );
    expect(reject({ ...samples.API, assertions: [{ ...outcome, extra: 1 }] })).toMatch(
      /assertions\[0\]\.extra: unknown field/,
    );
  });

  it('rejects what is not an object', () => {
    expect(reject(null)).toMatch(/expected object/);
    expect(reject('{}')).toMatch(/expected object/);
  });

  it('produces a JSON Schema that lists the fields and forbids unknown ones', () => {
    const schema = checkResultJsonSchema() as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['id', 'pages', 'heartbeat', 'ssl', 'timings']),
    );
    expect(schema.required).toEqual(expect.arrayContaining(['id', 'accountId', 'checkId', 'checkType', 'startedAt']));
    expect(schema.required).not.toContain('isDegraded');
    expect(schema.additionalProperties).toBe(false);
  });
});
