import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { TEMPLATE_MAX_DEPTH, TEMPLATE_MAX_EXPRESSIONS, limitIssue } from './limits.ts';
import { createTemplateSandbox } from './sandbox.ts';
import { compileTemplate, validateTemplate } from './template.ts';

const deep = (n: number) => '{{#if 1}}'.repeat(n) + 'x' + '{{/if}}'.repeat(n);
// Loops nested over every variable: small and shallow, but the work multiplies per level.
const explosive = '{{#each @root}}'.repeat(8) + 'x' + '{{/each}}'.repeat(8);
const manyVariables = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`V${i}`, 'v']));
const event = {
  CHECK_NAME: 'c',
  CHECK_ID: 'id',
  CHECK_TYPE: 'API',
  ALERT_TITLE: 't',
  ALERT_TYPE: 'ALERT_FAILURE' as const,
  CHECK_RESULT_ID: null,
  CHECK_ERROR_MESSAGE: null,
  RESPONSE_TIME: null,
  API_CHECK_RESPONSE_STATUS_CODE: null,
  API_CHECK_RESPONSE_STATUS_TEXT: null,
  RUN_LOCATION: null,
  RESULT_LINK: null,
  SSL_DAYS_REMAINING: null,
  SSL_CHECK_DOMAIN: null,
  STARTED_AT: null,
  TAGS: [],
  GROUP_NAME: null,
  IS_REMINDER: false,
  REMINDER_SEQUENCE: 0,
};

describe('template limits', () => {
  it('refuses nesting deeper than the limit before parsing, naming the limit and the position', () => {
    expect(limitIssue(deep(TEMPLATE_MAX_DEPTH))).toBeUndefined();
    const issue = limitIssue(`{"a":1}\n${deep(4000)}`);
    expect(issue?.message).toMatch(/TEMPLATE_MAX_DEPTH/);
    expect(issue?.message).toContain(String(TEMPLATE_MAX_DEPTH));
    expect(issue).toMatchObject({ line: 2, column: 9 * TEMPLATE_MAX_DEPTH + 1 });
    expect(validateTemplate(deep(4000))).toMatchObject({ ok: false, message: expect.stringMatching(/levels deep/) });
  });

  it('counts blocks, not inverse sections or comments', () => {
    const nested = '{{#if A}}{{^}}x{{/if}}'.repeat(1) + '{{!-- {{#if}}{{#if}} --}}'.repeat(40);
    expect(limitIssue(nested)).toBeUndefined();
  });

  it('refuses more expressions than the limit', () => {
    expect(limitIssue('{{X}}'.repeat(TEMPLATE_MAX_EXPRESSIONS))).toBeUndefined();
    expect(limitIssue('{{X}}'.repeat(TEMPLATE_MAX_EXPRESSIONS + 1))?.message).toMatch(/TEMPLATE_MAX_EXPRESSIONS/);
  });

  it('stops a render that runs past its budget with a ValidationError naming the budget', () => {
    const render = compileTemplate(explosive, 'body-text', 'config.template');
    expect(() => render(manyVariables, { budgetMs: 20 })).toThrow(ValidationError);
    expect(() => render(manyVariables, { budgetMs: 20 })).toThrow(/TEMPLATE_RENDER_BUDGET_MS/);
  });
});

describe('template sandbox (worker thread)', () => {
  const sandbox = createTemplateSandbox({ timeoutMs: 1500 });
  afterAll(async () => {
    await sandbox.close();
  });

  it('renders off the main thread with the same result as in-process', async () => {
    const rendered = await sandbox.render(
      { url: 'https://example.com/{{CHECK_ID}}', template: '{"n":"{{CHECK_NAME}}","a":"{{A}}"}' },
      { event, account: { A: 'x' } },
    );
    expect(rendered.url).toBe('https://example.com/id');
    expect(JSON.parse(rendered.body)).toEqual({ n: 'c', a: 'x' });
  });

  it('validates fields and names the first one that fails', async () => {
    expect(await sandbox.validate([{ field: 'config.url', source: 'https://x/{{A}}' }])).toBeNull();
    const issue = await sandbox.validate([
      { field: 'config.url', source: 'https://x' },
      { field: 'config.template', source: deep(100) },
    ]);
    expect(issue).toMatchObject({ field: 'config.template', message: expect.stringMatching(/TEMPLATE_MAX_DEPTH/) });
  });

  it('a render over budget fails as a ValidationError and the sandbox keeps working', async () => {
    await expect(
      sandbox.render({ url: 'https://x', template: explosive }, { event, account: manyVariables }),
    ).rejects.toThrow(ValidationError);
    expect((await sandbox.render({ url: 'https://x/{{A}}' }, { event, account: { A: 'ok' } })).url).toBe(
      'https://x/ok',
    );
  });
});
