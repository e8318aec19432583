import { describe, expect, it } from 'vitest';
import { renderTemplates } from './render.ts';
import { compileTemplate, type TemplateContext } from './template.ts';

// Differential: text without `{{` is sent as itself instead of being rendered; for every such
// value the full render must give the same text, in each context where the shortcut is taken.
const plain = [
  '',
  'https://example.com/hook?a=1&b=%20x#frag',
  'Bearer abc.def-ghi_jkl',
  'a\\b \\\\ c \\{ d { e } f }} g',
  'single { brace and } closing',
  'Zürich – 日本 – emoji 🎉',
  '  spaced  ',
  '&<>"\'`=',
  '%7B%7Bencoded%7D%7D',
  '{ {not} }',
];

describe('renderTemplates: values without an expression', () => {
  it('render as the full render would, in the url, query and header contexts', () => {
    for (const context of ['url', 'query', 'header'] as TemplateContext[])
      for (const text of plain)
        expect(text, `${context}: ${text}`).toBe(compileTemplate(text, context, 'field')({ X: 'x' }, {}));
  });

  it('give the same URL and headers through renderTemplates as a value with an expression does', () => {
    const variables = { event: { X: 'x' } as never, account: {}, group: {} };
    for (const text of plain) {
      const config = {
        url: 'https://example.com/h',
        headers: [{ key: 'x-plain', value: text }],
        queryParameters: [{ key: 'q', value: text }],
      };
      // The same text with an expression that renders as nothing takes the full render.
      const templated = {
        url: 'https://example.com/h{{#if NOPE}}x{{/if}}',
        headers: [{ key: 'x-plain', value: `${text}{{#if NOPE}}x{{/if}}` }],
        queryParameters: [{ key: 'q', value: `${text}{{#if NOPE}}x{{/if}}` }],
      };
      const fast = renderTemplates(config, variables);
      const full = renderTemplates(templated, variables);
      expect(fast.url).toBe(full.url);
      expect(fast.headers).toEqual(full.headers);
    }
  });
});
