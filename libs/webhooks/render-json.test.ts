import { describe, expect, it } from 'vitest';
import { isJsonBody, renderTemplates } from './render.ts';
import { alertEventVariablesSchema } from './variables.ts';

// isJsonBody answers from the last rendered canonical body without parsing it again; it must give
// the answer parsing gives, for rendered bodies and for any other string after them.

const parses = (body: string) => {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
};

const event = alertEventVariablesSchema.parse({
  CHECK_NAME: 'c "1"',
  CHECK_ID: 'id',
  CHECK_TYPE: 'API',
  ALERT_TITLE: 't',
  ALERT_TYPE: 'ALERT_FAILURE',
});

describe('isJsonBody after a render', () => {
  it('agrees with JSON.parse for rendered bodies (JSON, text, broken JSON, none) and other strings', () => {
    const templates = ['{"n": "{{CHECK_NAME}}"}', '{{CHECK_NAME}} is down', '{"n": {{CHECK_NAME}} }', null, '[1, 2]'];
    for (const template of templates) {
      const { body } = renderTemplates({ url: 'https://x.example/', template }, { event });
      for (const candidate of [body, `${body} `, body.slice(1), 'text', '{"a":1}', '', '{']) {
        expect(isJsonBody(candidate), `${JSON.stringify(template)} → ${JSON.stringify(candidate)}`).toBe(
          parses(candidate),
        );
      }
    }
  });
});
