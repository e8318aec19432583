import { describe, expect, it } from 'vitest';
import { same, truthy } from './helpers.ts';
import { compileTemplate, validateTemplate } from './template.ts';

const now = new Date('2025-03-04T05:06:07.089Z');
const render = (
  source: string,
  variables: Record<string, unknown> = {},
  options: { region?: string; now?: Date } = { now },
) => compileTemplate(source, 'body-text')(variables, options);

describe('comparison helpers', () => {
  it('eq renders its block when the values are equal, else the else block', () => {
    const template = '{{#eq ALERT_TYPE "ALERT_FAILURE"}}DOWN{{else}}UP{{/eq}}';
    expect(render(template, { ALERT_TYPE: 'ALERT_FAILURE' })).toBe('DOWN');
    expect(render(template, { ALERT_TYPE: 'ALERT_RECOVERY' })).toBe('UP');
  });

  it('eq compares numbers and numeric strings by value, and chains with else', () => {
    expect(render('{{#eq CODE 500}}yes{{/eq}}', { CODE: '500' })).toBe('yes');
    expect(render('{{#eq CODE "500"}}yes{{/eq}}', { CODE: 500 })).toBe('yes');
    expect(render('{{#eq CODE 5}}yes{{else}}no{{/eq}}', { CODE: 50 })).toBe('no');
    const chain = '{{#eq T "a"}}A{{else eq T "b"}}B{{else}}other{{/eq}}';
    expect([render(chain, { T: 'a' }), render(chain, { T: 'b' }), render(chain, { T: 'c' })]).toEqual([
      'A',
      'B',
      'other',
    ]);
  });

  it('same treats null and undefined alike and never equates a list with its text', () => {
    expect(same(null, undefined)).toBe(true);
    expect(same(null, '')).toBe(false);
    expect(same(['a'], 'a')).toBe(false);
    expect(same(true, 'true')).toBe(true);
  });

  it.each([
    ['gt', 1001, 1000, true],
    ['gt', 1000, 1000, false],
    ['gte', 1000, 1000, true],
    ['gte', 999, 1000, false],
    ['lt', 2, 10, true],
    ['lt', 10, 2, false],
    ['lte', 10, 10, true],
    ['lte', 11, 10, false],
    ['gt', '10', '9', true],
    ['gt', '10', 9, true],
    ['gt', 'b', 'a', true],
    ['lt', 'a', 'b', true],
    ['gt', undefined, 1, false],
    ['lt', null, 1, false],
    ['gt', 'abc', 1, false],
    ['lt', '', 1, false],
  ])('%s %j %j is %s, as a block and as a subexpression', (helper, a, b, expected) => {
    const variables = { A: a, B: b };
    expect(render(`{{#${helper} A B}}yes{{else}}no{{/${helper}}}`, variables)).toBe(expected ? 'yes' : 'no');
    expect(render(`{{#if (${helper} A B)}}yes{{else}}no{{/if}}`, variables)).toBe(expected ? 'yes' : 'no');
  });

  it('a predicate used as a plain value renders true or false', () => {
    expect(render('{{gt RESPONSE_TIME 1000}}/{{eq 1 2}}', { RESPONSE_TIME: 1500 })).toBe('true/false');
  });
});

describe('logic helpers', () => {
  const vars = { YES: 'x', ALSO: 1, NO: '', ZERO: 0, EMPTY: [], LIST: ['a'] };

  it('and needs every value truthy; or any; not none', () => {
    expect(render('{{#and YES ALSO LIST}}all{{else}}not all{{/and}}', vars)).toBe('all');
    expect(render('{{#and YES NO}}all{{else}}not all{{/and}}', vars)).toBe('not all');
    expect(render('{{#or NO ZERO EMPTY}}some{{else}}none{{/or}}', vars)).toBe('none');
    expect(render('{{#or NO YES}}some{{else}}none{{/or}}', vars)).toBe('some');
    expect(render('{{#not EMPTY}}empty{{else}}full{{/not}}', vars)).toBe('empty');
    expect(render('{{#if (and YES (or NO ALSO) (not ZERO))}}ok{{/if}}', vars)).toBe('ok');
  });

  it('truthy follows Handlebars: an empty list and zero are false', () => {
    expect([[], 0, '', null, undefined, false, Number.NaN].map(truthy)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([['a'], 1, 'x', {}, true].map(truthy)).toEqual([true, true, true, true, true]);
  });

  it('if and unless work as blocks and as inline values', () => {
    expect(render('{{#if YES}}a{{else}}b{{/if}}{{#unless YES}}c{{else}}d{{/unless}}', vars)).toBe('ad');
    expect(render('{{if YES "on" "off"}} {{if NO "on" "off"}} {{if NO "on"}}|', vars)).toBe('on off |');
    expect(render('{{#if (unless NO)}}negated{{/if}}', vars)).toBe('negated');
    expect(render('{{#if ZERO includeZero=true}}zero counts{{/if}}', vars)).toBe('zero counts');
  });

  it('contains looks in a list for an equal item, or in a string for a substring', () => {
    const tags = { TAGS: ['env:prod', 'critical', 42] };
    expect(render('{{#contains TAGS "critical"}}page{{else}}ticket{{/contains}}', tags)).toBe('page');
    expect(render('{{#contains TAGS "crit"}}page{{else}}ticket{{/contains}}', tags)).toBe('ticket');
    expect(render('{{#contains TAGS "42"}}n{{/contains}}', tags)).toBe('n');
    expect(render('{{#contains MSG "timeout"}}slow{{/contains}}', { MSG: 'connect timeout after 30s' })).toBe('slow');
    expect(render('{{#contains MISSING "x"}}y{{else}}n{{/contains}}')).toBe('n');
    expect(render('{{#if (contains TAGS "critical")}}sub{{/if}}', tags)).toBe('sub');
  });

  it('startsWith works as a block and a subexpression', () => {
    expect(render('{{#startsWith URL "https://"}}tls{{else}}plain{{/startsWith}}', { URL: 'https://x' })).toBe('tls');
    expect(render('{{#if (startsWith CODE "5")}}server error{{/if}}', { CODE: 503 })).toBe('server error');
    expect(render('{{#startsWith LIST "a"}}y{{else}}n{{/startsWith}}', { LIST: ['a'] })).toBe('n');
  });
});

describe('iteration and text helpers', () => {
  it('each gives this, @index and @last', () => {
    expect(
      render('{{#each TAGS}}{{@index}}={{this}}{{#unless @last}}, {{/unless}}{{/each}}', { TAGS: ['a', 'b', 'c'] }),
    ).toBe('0=a, 1=b, 2=c');
    expect(render('{{#each TAGS}}x{{else}}no tags{{/each}}', { TAGS: [] })).toBe('no tags');
  });

  it('uppercase and lowercase', () => {
    expect(render('{{uppercase NAME}} {{lowercase NAME}} [{{uppercase MISSING}}]', { NAME: 'Api Çheck' })).toBe(
      'API ÇHECK api çheck []',
    );
  });

  it('tagValue finds the value of a key:value tag', () => {
    const vars = { TAGS: ['team:core', 'env:prod', 'url:https://x.io'], CSV: 'a:1, env:stage' };
    expect(
      render('{{tagValue TAGS "env"}}|{{tagValue TAGS "url"}}|{{tagValue TAGS "nope"}}|{{tagValue CSV "env"}}', vars),
    ).toBe('prod|https://x.io||stage');
  });

  it('replace replaces every occurrence, literally', () => {
    expect(render('{{replace NAME "-" " "}}', { NAME: 'a-b-c' })).toBe('a b c');
    expect(render('{{replace NAME "." "$&$&"}}', { NAME: 'a.b' })).toBe('a$&amp;$&amp;b');
    expect(render('{{{replace NAME "" "x"}}}', { NAME: 'ab' })).toBe('ab');
  });

  it('split gives a list to iterate, trimmed and without empty items', () => {
    expect(render('{{#each (split EMAILS ",")}}<{{this}}>{{/each}}', { EMAILS: 'a@x.io, b@x.io,,c@x.io' })).toBe(
      '<a@x.io><b@x.io><c@x.io>',
    );
    expect(render('{{#each (split PATH "/")}}[{{this}}]{{/each}}', { PATH: 'a/b' })).toBe('[a][b]');
    expect(render('{{#each (split MISSING)}}x{{else}}none{{/each}}')).toBe('none');
  });

  it('default falls back when the value is missing or empty', () => {
    expect(
      render('{{default GROUP_NAME "no group"}}|{{default EMPTY "-"}}|{{default ZERO "-"}}', {
        GROUP_NAME: null,
        EMPTY: '',
        ZERO: 0,
      }),
    ).toBe('no group|-|0');
  });
});

describe('render-time helpers', () => {
  it('REGION is the configured region, "local" by default', () => {
    expect(render('{{REGION}}', {}, { region: 'eu-west-1' })).toBe('eu-west-1');
    expect(render('{{REGION}}', {}, {})).toBe('local');
  });

  it('$UUID is a fresh version 4 UUID each time', () => {
    const [a, b] = render('{{$UUID}} {{$UUID}}').split(' ');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b).not.toBe(a);
  });

  it('$RANDOM_NUMBER is an integer from 0 to 1000', () => {
    const template = compileTemplate('{{$RANDOM_NUMBER}}', 'body-text');
    const values = Array.from({ length: 2000 }, () => template({}));
    expect(values.every((text) => /^(0|[1-9]\d{0,2}|1000)$/.test(text))).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(500);
  });

  it('moment formats now with one argument, and a relative expression or a date with two', () => {
    expect(render('{{moment "YYYY-MM-DD HH:mm"}}')).toBe('2025-03-04 05:06');
    expect(render('{{moment "X"}}')).toBe('1741064767');
    expect(render('{{moment}}')).toBe('2025-03-04T05:06:07+00:00');
    expect(render('{{moment "2 days ago" "YYYY-MM-DD"}}')).toBe('2025-03-02');
    expect(render('{{moment "last week" "X"}}')).toBe(String(1741064767 - 7 * 86400));
    expect(render('{{moment "in 3 hours" "HH:mm"}}')).toBe('08:06');
    expect(render('{{moment STARTED_AT "X"}}', { STARTED_AT: '2025-01-01T00:00:00.000Z' })).toBe('1735689600');
    expect(render('{{moment "whenever" "X"}}')).toBe('Invalid date');
  });

  it('every render of one template uses the same now', () => {
    const template = compileTemplate('{{moment "x"}}', 'body-text');
    expect(template({}, { now: new Date(1) })).toBe('1');
    expect(template({}, { now: new Date(2) })).toBe('2');
  });

  it('log is not available: template output never goes to the console', () => {
    expect(validateTemplate('{{log "hello"}}')).toMatchObject({ ok: false, message: 'unknown helper "log"' });
  });
});
