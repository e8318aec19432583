import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import {
  bodyContext,
  compileTemplate,
  TEMPLATE_MAX_BYTES,
  templateVariables,
  validateTemplate,
  type TemplateContext,
} from './template.ts';

const hostile = 'He said "hi"\\ then\nleft\r\n\ttab \u0001 </script><b>&\'`= ü 漢字 🚨 \u2028';
const render = (source: string, context: TemplateContext, variables: Record<string, unknown> = { X: hostile }) =>
  compileTemplate(source, context)(variables);

describe('encoding of {{X}} by context', () => {
  it('JSON body: escapes as a JSON string without quotes, so the body stays valid JSON', () => {
    const body = render('{"msg": "{{X}}", "n": {{N}} }', 'body-json', { X: hostile, N: 12 });
    expect(JSON.parse(body)).toEqual({ msg: hostile, n: 12 });
  });

  it('JSON body: a lone surrogate still gives valid JSON', () => {
    const body = render('{"msg": "{{X}}"}', 'body-json', { X: 'bad \ud800 half' });
    expect(JSON.parse(body)).toEqual({ msg: 'bad \ud800 half' });
  });

  it('JSON body: {{{X}}} inserts a string raw and anything else as JSON; {{X}} gives a list as text', () => {
    const variables = { TAGS: ['a', 'b "c"'], OBJ: { k: 1 }, N: 3, B: true, S: '"quoted"', NIL: null };
    expect(render('[{{{TAGS}}}, {{{OBJ}}}, {{{N}}}, {{{B}}}, {{{S}}}, "{{{NIL}}}"]', 'body-json', variables)).toBe(
      '[["a","b \\"c\\""], {"k":1}, 3, true, "quoted", ""]',
    );
    expect(render('"{{TAGS}}"', 'body-json', variables)).toBe('"a,b \\"c\\""');
  });

  it('text body: HTML-escapes, so </script> cannot break out', () => {
    expect(render('<p>{{X}}</p>', 'body-text')).toBe(
      '<p>He said &quot;hi&quot;\\ then\nleft\r\n\ttab \u0001 &lt;/script&gt;&lt;b&gt;&amp;&#x27;&#x60;&#x3D; ü 漢字 🚨 \u2028</p>',
    );
  });

  it('URL and query: URI-component encoding, so a value cannot add a path, a query or a fragment', () => {
    const value = 'a b/c?d=e&f#g ü';
    expect(render('https://x.io/{{X}}', 'url', { X: value })).toBe('https://x.io/a%20b%2Fc%3Fd%3De%26f%23g%20%C3%BC');
    expect(render('{{X}}', 'query', { X: value })).toBe('a%20b%2Fc%3Fd%3De%26f%23g%20%C3%BC');
    expect(render('{{X}}', 'url', { X: 'half \udc00' })).toBe('half%20%EF%BF%BD');
  });

  it('header: CR and LF are removed, so a value cannot inject a header', () => {
    expect(render('Bearer {{X}}', 'header', { X: 'abc\r\nX-Injected: 1\nY' })).toBe('Bearer abcX-Injected: 1Y');
  });

  it('{{{X}}} inserts the value raw in every context', () => {
    for (const context of ['url', 'query', 'header', 'body-text'] as const) {
      expect(render('{{{X}}}', context, { X: 'a b&<"\n' })).toBe('a b&<"\n');
    }
  });

  it('helper output is encoded too: a helper cannot smuggle raw text', () => {
    expect(render('{{uppercase X}}', 'url', { X: 'a/b' })).toBe('A%2FB');
    expect(render('{{default X "<none>"}}', 'body-text', { X: '' })).toBe('&lt;none&gt;');
  });

  it('a missing variable renders empty (not strict), and numbers and booleans as text', () => {
    expect(render('[{{MISSING}}][{{N}}][{{B}}][{{Z}}]', 'body-text', { N: 1.5, B: false, Z: 0 })).toBe(
      '[][1.5][false][0]',
    );
  });
});

describe('bodyContext', () => {
  it('is JSON when the template’s literal text starts with { or [', () => {
    expect(bodyContext('  \n{"a": 1}')).toBe('body-json');
    expect(bodyContext('[1]')).toBe('body-json');
    expect(bodyContext('{{!-- a comment --}}\n{"a": "{{X}}"}')).toBe('body-json');
    expect(bodyContext('{{#if A}}\n  {"a": 1}{{else}}[]{{/if}}')).toBe('body-json');
    expect(bodyContext('text {"a": 1}')).toBe('body-text');
    expect(bodyContext('{{X}} is down')).toBe('body-text');
    expect(bodyContext('{{X}}')).toBe('body-text');
    expect(bodyContext('')).toBe('body-text');
  });
});

describe('validateTemplate', () => {
  it('accepts a valid template', () => {
    expect(validateTemplate('{{#each TAGS}}{{this}}{{/each}} {{moment "X"}} {{#if (gt A 1)}}x{{/if}}')).toEqual({
      ok: true,
    });
  });

  it.each([
    ['hello\n{{foo', 2, 3, /^parse error: Expecting 'ID'/],
    ['line one\nline two {{ x y= }}', 2, 18, /^parse error: .*got 'CLOSE'/],
    ['{"a": "{{CHECK_NAME}"}', 1, 20, /^parse error/],
    ['{{#if a}}\nxyz', 2, 4, /got 'EOF'/],
    ['{{#if x}}\nabc\n  {{/each}}', 1, 4, /^if doesn't match each$/],
    ['a\n\n  {{!-- never closed', 3, 3, /^lexical error/],
    ['{{foo/../bar}}', 1, 3, /^Invalid path: foo\/\.\.$/],
    ['ok\n  {{> partial}}', 2, 3, /^partials are not supported$/],
    ['{{#> layout}}x{{/layout}}', 1, 1, /^partials are not supported$/],
    ['{{#*inline "p"}}x{{/inline}}', 1, 1, /^decorators are not supported$/],
    ['x {{nope 1}}', 1, 3, /^unknown helper "nope"$/],
    ['{{#if (nope)}}x{{/if}}', 1, 7, /^unknown helper "nope"$/],
    ['{{this.foo 1}}', 1, 1, /^unknown helper "this.foo"$/],
    ['\n {{#eq A}}x{{/eq}}', 2, 2, /^eq needs at least 2 arguments$/],
    ['{{replace A "x"}}', 1, 1, /^replace needs at least 3 arguments$/],
    ['{{#if}}x{{/if}}', 1, 1, /^if needs at least 1 argument$/],
    ['{{#if a b}}x{{/if}}', 1, 1, /^#if takes exactly one argument$/],
  ])('refuses %j at line %i, column %i', (source, line, column, message) => {
    const result = validateTemplate(source);
    expect(result).toMatchObject({ ok: false, line, column });
    expect(result.ok === false && result.message).toMatch(message);
  });

  it('explains the "}}}" that ends a JSON object right after a value', () => {
    const result = validateTemplate('{"n": {{N}}}');
    expect(result).toMatchObject({ ok: false, line: 1, column: 10 });
    expect(result.ok === false && result.message).toContain('add a space: {{X}} }');
  });

  it('points at the right place among repeated text', () => {
    const source = `${'{{A}} {{B}}\n'.repeat(5)}{{A}} {{B}\n${'{{A}} {{B}}\n'.repeat(5)}`;
    expect(validateTemplate(source)).toMatchObject({ ok: false, line: 6 });
  });

  it('compileTemplate throws ValidationError naming the field, line and column', () => {
    expect(() => compileTemplate('ok\n{{#eq A}}x{{/eq}}', 'body-text', 'config.template')).toThrow(ValidationError);
    expect(() => compileTemplate('ok\n{{#eq A}}x{{/eq}}', 'body-text', 'config.template')).toThrow(
      'config.template: line 2, column 1: eq needs at least 2 arguments',
    );
  });
});

describe('size limit', () => {
  it('accepts exactly 64 KiB and refuses one byte more', () => {
    expect(validateTemplate('x'.repeat(TEMPLATE_MAX_BYTES))).toEqual({ ok: true });
    expect(validateTemplate('x'.repeat(TEMPLATE_MAX_BYTES + 1))).toMatchObject({
      ok: false,
      message: 'template is larger than 65536 bytes (64 KiB)',
      line: 1,
    });
    expect(() => compileTemplate('x'.repeat(TEMPLATE_MAX_BYTES + 1), 'body-text')).toThrow(ValidationError);
  });

  it('counts bytes, not characters', () => {
    const source = 'é'.repeat(TEMPLATE_MAX_BYTES / 2 + 1);
    expect(source.length).toBeLessThan(TEMPLATE_MAX_BYTES);
    expect(validateTemplate(source)).toMatchObject({ ok: false, line: 1, column: TEMPLATE_MAX_BYTES / 2 + 1 });
  });
});

describe('prototype access', () => {
  const variables = { CHECK_NAME: 'api', TAGS: ['a'], OBJ: { k: 1 } };

  it.each([
    '{{constructor.name}}',
    '{{constructor}}',
    '{{__proto__}}',
    '{{#with this}}{{constructor}}{{/with}}',
    '{{lookup this "constructor"}}',
    '{{TAGS.constructor}}',
    '{{TAGS.constructor.name}}',
    '{{CHECK_NAME.constructor.name}}',
    '{{#with CHECK_NAME}}{{constructor.constructor}}{{/with}}',
    '{{#with "s" as |s|}}{{lookup s "constructor"}}{{/with}}',
    '{{__proto__.polluted}}',
    '{{hasOwnProperty}}{{toString}}{{valueOf}}',
    '{{TAGS.toString}}',
    '{{CHECK_NAME.toUpperCase}}',
    '{{OBJ.hasOwnProperty}}',
    '{{OBJ.__defineGetter__}}',
  ])('%s renders empty', (source) => {
    expect(compileTemplate(source, 'body-text')(variables)).toBe('');
  });

  it('refuses the known Function-constructor exploit, or renders it harmlessly', () => {
    const marker = `/tmp/vigil-pwned-${process.pid}`;
    const exploit = `{{#with "s" as |string|}}{{#with "e"}}{{#with split as |conslist|}}{{this.pop}}{{this.push (lookup string.sub "constructor")}}{{this.pop}}{{#with string.split as |codelist|}}{{this.pop}}{{this.push "return require('fs').writeFileSync('${marker}', 'x');"}}{{this.pop}}{{#each conslist}}{{#with (string.sub.apply 0 codelist)}}{{this}}{{/with}}{{/each}}{{/with}}{{/with}}{{/with}}{{/with}}`;
    const result = validateTemplate(exploit);
    if (result.ok) compileTemplate(exploit, 'body-text')({});
    expect(result.ok).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it('each over the root lists only the variables', () => {
    expect(compileTemplate('{{#each this}}{{@key}};{{/each}}', 'body-text')(variables)).toBe('CHECK_NAME;TAGS;OBJ;');
  });
});

describe('templateVariables', () => {
  it('lists the top-level variables read, but not helpers, data or names inside each', () => {
    const source =
      '{{A}} {{{B}}} {{uppercase C}} {{#if (gt D 1)}}{{E.x}}{{/if}} {{REGION}} {{#each F}}{{G}}{{@index}}{{/each}} {{@root.H}} {{"I"}} {{tagValue TAGS "k"}}';
    expect(templateVariables(source).map((ref) => ref.name)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'H', 'I', 'TAGS']);
  });

  it('gives positions and is empty for a template that does not parse', () => {
    expect(templateVariables('x\n  {{A}}')).toEqual([{ name: 'A', line: 2, column: 3 }]);
    expect(templateVariables('{{A')).toEqual([]);
  });
});
