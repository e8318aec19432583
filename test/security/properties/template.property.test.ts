import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAppError } from '#core';
import { compileTemplate, validateTemplate, type TemplateContext } from '#webhooks';

// Arbitrary templates, built from Handlebars pieces an attacker would reach for (deep blocks,
// loops over loops, prototype paths, partials, raw blocks, stray braces): parsing and rendering
// either succeed or fail with our ValidationError (a 400 naming the field), never another error;
// nothing reaches Object.prototype or a constructor. A hang shows up as this file's test timeout.

const names = fc.constantFrom(
  'x',
  'list',
  'nested.deep',
  'this',
  '@root',
  '../x',
  '__proto__',
  'constructor',
  'constructor.constructor',
  '__proto__.polluted',
  'prototype',
  '__defineGetter__',
  'valueOf',
  'toString',
);
const helperCalls = fc.constantFrom(
  'lookup this "constructor"',
  'lookup (lookup this "constructor") "constructor"',
  'lookup list "length"',
  'log "x"',
  'json this',
  'helperMissing',
  'blockHelperMissing',
);

const leaf: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 8 }),
  names.map((name) => `{{${name}}}`),
  names.map((name) => `{{{${name}}}}`),
  helperCalls.map((call) => `{{${call}}}`),
  fc.constantFrom(
    '{{',
    '}}',
    '{{/if}}',
    '{{else}}',
    '{{> partial}}',
    '{{!-- c --}}',
    '{{{{raw}}}}',
    '\\{{x}}',
    '{{~x~}}',
  ),
);

const template: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }).map((parts) => parts.join('')),
    fc
      .tuple(fc.constantFrom('if', 'unless', 'each', 'with'), names, tie('node'))
      .map(([block, name, body]) => `{{#${block} ${name}}}${body}{{/${block}}}`),
    fc
      .tuple(fc.constantFrom('each', 'with'), helperCalls, tie('node'))
      .map(([block, call, body]) => `{{#${block} (${call})}}${body}{{/${block}}}`),
  ),
})).node;

/** Deep nesting beyond any limit: these must be refused with our error, never run. */
const deep = fc
  .tuple(fc.integer({ min: 1, max: 2000 }), fc.constantFrom('if 1', 'each list', 'with x'))
  .map(([depth, open]) => {
    const block = open.split(' ')[0]!;
    return `{{#${open}}}`.repeat(depth) + 'x' + `{{/${block}}}`.repeat(depth);
  });

const contexts: TemplateContext[] = ['body-text', 'body-json', 'url', 'header', 'query'];
const variables = { x: 'value', list: [1, 2, 3], nested: { deep: 'd' } };

function renderOrRefuse(source: string, context: TemplateContext): string | undefined {
  try {
    return compileTemplate(source, context)(variables);
  } catch (error) {
    // Only our error type may escape; anything else would be a 500 or a crashed delivery.
    expect(isAppError(error), `${context}: ${String(error)} for ${JSON.stringify(source)}`).toBe(true);
    expect((error as { statusCode: number }).statusCode).toBe(400);
    return undefined;
  }
}

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join(',');

describe('template parser and renderer under arbitrary input', () => {
  it('validate and render never throw outside our error type, and reach no prototype', () => {
    const before = prototypeKeys();
    fc.assert(
      fc.property(template, fc.constantFrom(...contexts), (source, context) => {
        const validation = validateTemplate(source);
        if (!validation.ok) expect(validation.message.length).toBeGreaterThan(0);
        const output = renderOrRefuse(source, context);
        if (output !== undefined) {
          expect(output).not.toMatch(/\[native code\]|function Object\(|function Function\(/);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(prototypeKeys()).toBe(before);
      }),
      { numRuns: 1500 },
    );
  });

  it('nesting past the limit is refused with our error at any depth', () => {
    fc.assert(
      fc.property(deep, fc.constantFrom(...contexts), (source, context) => {
        renderOrRefuse(source, context);
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary text (any unicode, stray braces) is handled the same way', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.constantFrom(...contexts), (source, context) => {
        renderOrRefuse(source, context);
      }),
      { numRuns: 1000 },
    );
  });
});
