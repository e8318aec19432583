import { describe, expect, it } from 'vitest';
import { assertionComparisons, assertionSources, type Assertion, type AssertionComparison } from '#domain';
import { describeAssertion, evaluateAssertions, type Observed } from './assertions.ts';
import type { RunnableCheckType } from './types.ts';

const observed: Observed = {
  statusCode: 200,
  headers: { 'content-type': 'application/json', 'x-empty': '' },
  body: JSON.stringify({ status: 'ok', count: 3, items: ['a', 'b'], nested: { key: 'v' }, nothing: null, empty: [] }),
  responseTime: 120,
  responseData: 'PONG server ready',
  responseCode: 'NOERROR',
  textAnswer: 'www.vigil.test.\t600\tIN\tA\t192.0.2.10',
  jsonAnswer: { Status: 0, Answer: [{ name: 'www.vigil.test.', type: 1, TTL: 600, data: '192.0.2.10' }] },
};

const typeOf: Record<string, RunnableCheckType> = {
  STATUS_CODE: 'API',
  JSON_BODY: 'API',
  TEXT_BODY: 'API',
  HEADERS: 'API',
  RESPONSE_TIME: 'API',
  RESPONSE_DATA: 'TCP',
  RESPONSE_CODE: 'DNS',
  TEXT_ANSWER: 'DNS',
  JSON_ANSWER: 'DNS',
};

function check(source: Assertion['source'], comparison: AssertionComparison, target = '', property = '') {
  const assertion: Assertion = { source, comparison, target, property };
  const [outcome] = evaluateAssertions(typeOf[source] as RunnableCheckType, [assertion], observed);
  return outcome!;
}

// [source, property, target] that passes, then one that fails, for every comparison.
const byComparison: Record<AssertionComparison, [Parameters<typeof check>, Parameters<typeof check>]> = {
  EQUALS: [
    ['STATUS_CODE', 'EQUALS', '200'],
    ['STATUS_CODE', 'EQUALS', '201'],
  ],
  NOT_EQUALS: [
    ['JSON_BODY', 'NOT_EQUALS', 'down', '$.status'],
    ['JSON_BODY', 'NOT_EQUALS', 'ok', '$.status'],
  ],
  HAS_KEY: [
    ['JSON_BODY', 'HAS_KEY', 'key', '$.nested'],
    ['JSON_BODY', 'HAS_KEY', 'other', '$.nested'],
  ],
  NOT_HAS_KEY: [
    ['HEADERS', 'NOT_HAS_KEY', 'x-missing'],
    ['HEADERS', 'NOT_HAS_KEY', 'Content-Type'],
  ],
  HAS_VALUE: [
    ['JSON_BODY', 'HAS_VALUE', 'b', '$.items'],
    ['JSON_BODY', 'HAS_VALUE', 'z', '$.items'],
  ],
  NOT_HAS_VALUE: [
    ['JSON_BODY', 'NOT_HAS_VALUE', 'z', '$.items'],
    ['JSON_BODY', 'NOT_HAS_VALUE', 'a', '$.items'],
  ],
  IS_EMPTY: [
    ['JSON_BODY', 'IS_EMPTY', '', '$.empty'],
    ['JSON_BODY', 'IS_EMPTY', '', '$.items'],
  ],
  NOT_EMPTY: [
    ['HEADERS', 'NOT_EMPTY', '', 'content-type'],
    ['HEADERS', 'NOT_EMPTY', '', 'x-empty'],
  ],
  GREATER_THAN: [
    ['RESPONSE_TIME', 'GREATER_THAN', '100'],
    ['RESPONSE_TIME', 'GREATER_THAN', '1000'],
  ],
  LESS_THAN: [
    ['JSON_BODY', 'LESS_THAN', '10', '$.count'],
    ['JSON_BODY', 'LESS_THAN', '2', '$.count'],
  ],
  CONTAINS: [
    ['TEXT_BODY', 'CONTAINS', '"status":"ok"'],
    ['TEXT_BODY', 'CONTAINS', 'error'],
  ],
  NOT_CONTAINS: [
    ['RESPONSE_DATA', 'NOT_CONTAINS', 'ERR'],
    ['RESPONSE_DATA', 'NOT_CONTAINS', 'PONG'],
  ],
  IS_NULL: [
    ['JSON_BODY', 'IS_NULL', '', '$.nothing'],
    ['JSON_BODY', 'IS_NULL', '', '$.status'],
  ],
  NOT_NULL: [
    ['JSON_ANSWER', 'NOT_NULL', '', '$.Answer[0].data'],
    ['JSON_ANSWER', 'NOT_NULL', '', '$.Answer[5].data'],
  ],
};

// A passing and a failing case per source.
const bySource: Record<Assertion['source'], [Parameters<typeof check>, Parameters<typeof check>]> = {
  STATUS_CODE: [
    ['STATUS_CODE', 'LESS_THAN', '300'],
    ['STATUS_CODE', 'GREATER_THAN', '299'],
  ],
  JSON_BODY: [
    ['JSON_BODY', 'EQUALS', '3', '$.count'],
    ['JSON_BODY', 'EQUALS', '4', '$.count'],
  ],
  TEXT_BODY: [
    ['TEXT_BODY', 'NOT_CONTAINS', 'error'],
    ['TEXT_BODY', 'IS_EMPTY'],
  ],
  HEADERS: [
    ['HEADERS', 'EQUALS', 'application/json', 'Content-Type'],
    ['HEADERS', 'CONTAINS', 'text/html', 'content-type'],
  ],
  RESPONSE_TIME: [
    ['RESPONSE_TIME', 'LESS_THAN', '500'],
    ['RESPONSE_TIME', 'LESS_THAN', '50'],
  ],
  RESPONSE_DATA: [
    ['RESPONSE_DATA', 'CONTAINS', 'ready'],
    ['RESPONSE_DATA', 'EQUALS', 'PONG'],
  ],
  RESPONSE_CODE: [
    ['RESPONSE_CODE', 'EQUALS', 'NOERROR'],
    ['RESPONSE_CODE', 'EQUALS', 'NXDOMAIN'],
  ],
  TEXT_ANSWER: [
    ['TEXT_ANSWER', 'CONTAINS', '192.0.2.10'],
    ['TEXT_ANSWER', 'CONTAINS', '192.0.2.99'],
  ],
  JSON_ANSWER: [
    ['JSON_ANSWER', 'EQUALS', '192.0.2.10', '$.Answer[0].data'],
    ['JSON_ANSWER', 'GREATER_THAN', '600', '$.Answer[0].TTL'],
  ],
};

describe('assertions', () => {
  it('covers every comparison and every source', () => {
    expect(Object.keys(byComparison).sort()).toEqual([...assertionComparisons].sort());
    expect(Object.keys(bySource).sort()).toEqual([...assertionSources].sort());
  });

  for (const [comparison, [pass, fail]] of Object.entries(byComparison)) {
    it(`${comparison}: passes and fails`, () => {
      expect(check(...pass).passed).toBe(true);
      const failed = check(...fail);
      expect(failed.passed).toBe(false);
      expect(failed.message).toMatch(/^actual /);
    });
  }

  for (const [source, [pass, fail]] of Object.entries(bySource)) {
    it(`${source}: passes and fails`, () => {
      expect(check(...pass).passed).toBe(true);
      expect(check(...fail).passed).toBe(false);
    });
  }

  it('reports the actual value, truncated', () => {
    const long = { ...observed, body: 'x'.repeat(5000) };
    const [outcome] = evaluateAssertions(
      'API',
      [{ source: 'TEXT_BODY', property: '', comparison: 'EQUALS', target: 'y' }],
      long,
    );
    expect(outcome!.actual.length).toBeLessThanOrEqual(201);
    expect(outcome!.actual.startsWith('xxxx')).toBe(true);
  });

  it('fails JSON_BODY on a body that is not JSON, and a source the type does not have', () => {
    const [notJson] = evaluateAssertions(
      'API',
      [{ source: 'JSON_BODY', property: '$.a', comparison: 'NOT_NULL', target: '' }],
      { ...observed, body: '<html>' },
    );
    expect(notJson).toMatchObject({ passed: false, message: 'the body is not JSON' });
    const [wrongType] = evaluateAssertions(
      'URL',
      [{ source: 'TEXT_BODY', property: '', comparison: 'NOT_EMPTY', target: '' }],
      observed,
    );
    expect(wrongType).toMatchObject({ passed: false, message: 'TEXT_BODY does not apply to URL checks' });
  });

  it('evaluates JSONPath filters with the safe evaluator, never native eval', () => {
    const body = JSON.stringify({
      users: [
        { id: 1, name: 'ann' },
        { id: 2, name: 'bob' },
      ],
    });
    const run = (property: string, target: string) =>
      evaluateAssertions('API', [{ source: 'JSON_BODY', property, comparison: 'EQUALS', target }], {
        ...observed,
        body,
      })[0]!;
    expect(run('$.users[?(@.id == 2)].name', 'bob').passed).toBe(true);
    expect(run('$.users[?(@.id == 2)].name', 'ann').passed).toBe(false);
    const hostile = run('$.users[?(process.exit(1))]', 'x');
    expect(hostile.passed).toBe(false);
  });

  it('compares numbers as numbers, not as text', () => {
    expect(check('JSON_BODY', 'GREATER_THAN', '10', '$.count').passed).toBe(false); // "3" > "10" as text
    expect(check('STATUS_CODE', 'GREATER_THAN', '99').passed).toBe(true); // "200" < "99" as text
    expect(check('TEXT_BODY', 'GREATER_THAN', '1').passed).toBe(false); // not a number
  });

  it('describes an assertion for error messages', () => {
    expect(describeAssertion({ source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'ok' })).toBe(
      'JSON_BODY $.status EQUALS "ok"',
    );
    expect(describeAssertion({ source: 'TEXT_BODY', property: '', comparison: 'IS_EMPTY', target: '' })).toBe(
      'TEXT_BODY IS_EMPTY',
    );
  });
});
