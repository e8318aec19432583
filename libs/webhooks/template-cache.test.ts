import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { compileTemplate, compileTemplateReference, type TemplateContext } from './template.ts';

// compileTemplate caches by source and shares one set of budget-wrapped helpers per context,
// reading the render's clock, region and deadline from the render in progress. The reference
// path builds the helpers for each render, as before; both must give the same output.

const templates: { source: string; context: TemplateContext }[] = [
  { source: '{"at":"{{moment "YYYY-MM-DD HH:mm:ss"}}","r":"{{REGION}}","n":"{{CHECK_NAME}}"}', context: 'body-json' },
  { source: '{{#each TAGS}}{{this}}{{#unless @last}},{{/unless}}{{/each}} in {{REGION}}', context: 'body-text' },
  {
    source: '{{#if (eq CODE 500)}}server {{CODE}}{{else}}other{{/if}} {{moment "1 hour ago" "HH:mm"}}',
    context: 'body-text',
  },
  { source: 'https://x.example/{{CHECK_NAME}}?r={{REGION}}', context: 'url' },
  { source: '{{uppercase CHECK_NAME}} {{default MISSING "none"}} {{lowercase REGION}}', context: 'header' },
  { source: '{"tags": {{{TAGS}}}, "t": "{{moment}}"}', context: 'body-json' },
];

const variables = (i: number) => ({
  CHECK_NAME: `check "${i}" <&>`,
  CODE: i % 2 === 0 ? 500 : '404',
  TAGS: ['a', `b${i}`, 'c"d'],
});
const options = (i: number) => ({ now: new Date(Date.UTC(2025, 0, 1 + i, i % 24, i)), region: `region-${i % 3}` });

describe('compileTemplate (cached, shared helpers) against the reference path', () => {
  it('renders the same as the reference, across interleaved clocks, regions and contexts', () => {
    for (let i = 0; i < 40; i++) {
      for (const { source, context } of templates) {
        const fast = compileTemplate(source, context, 'config.template')(variables(i), options(i));
        const slow = compileTemplateReference(source, context, 'config.template')(variables(i), options(i));
        expect(fast).toBe(slow);
      }
    }
  });

  it('a copy of the source (another string object) hits the same compiled template', () => {
    const source = templates[0]!.source;
    const copy = [...source].join('');
    expect(compileTemplate(copy, 'body-json', 'f')).toBe(compileTemplate(source, 'body-json', 'f'));
    expect(compileTemplate(source, 'body-text', 'f')).not.toBe(compileTemplate(source, 'body-json', 'f'));
  });

  it('a render stopped by its budget leaves the next render its own clock, region and budget', () => {
    const explosive = '{{#each L}}{{#each ../L}}{{#each ../../L}}{{REGION}}{{/each}}{{/each}}{{/each}}';
    const L = Array.from({ length: 200 }, (_, i) => i);
    const bomb = compileTemplate(explosive, 'body-text', 'config.template');
    expect(() => bomb({ L }, { budgetMs: 5, region: 'bomb' })).toThrow(ValidationError);
    const source = '{{REGION}} {{moment "YYYY"}}';
    const after = compileTemplate(source, 'body-text')({}, { region: 'eu', now: new Date('2024-06-01T00:00:00Z') });
    expect(after).toBe(
      compileTemplateReference(source, 'body-text')({}, { region: 'eu', now: new Date('2024-06-01T00:00:00Z') }),
    );
    expect(after).toBe('eu 2024');
    // The bomb's budget is not left behind: an ordinary render is not stopped.
    expect(compileTemplate('{{#each L}}{{REGION}}{{/each}}', 'body-text')({ L }, {})).toHaveLength(L.length * 5);
  });
});
