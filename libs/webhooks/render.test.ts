import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { canonicalJson, renderTemplates, type WebhookChannelConfig } from './render.ts';
import {
  alertEventVariablesSchema,
  EVENT_VARIABLE_NAMES,
  mergedVariables,
  mergeVariables,
  type AlertEventVariablesInput,
} from './variables.ts';

const now = new Date('2025-03-04T05:06:07.089Z');
const eventInput: AlertEventVariablesInput = {
  CHECK_NAME: 'Checkout "API"',
  CHECK_ID: '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f',
  CHECK_TYPE: 'API',
  ALERT_TITLE: 'Checkout "API" is failing',
  ALERT_TYPE: 'ALERT_FAILURE',
  CHECK_RESULT_ID: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  CHECK_ERROR_MESSAGE: 'expected 200, got 503\n"Service Unavailable"',
  RESPONSE_TIME: 1234,
  API_CHECK_RESPONSE_STATUS_CODE: 503,
  API_CHECK_RESPONSE_STATUS_TEXT: 'Service Unavailable',
  RUN_LOCATION: 'eu-west-1',
  RESULT_LINK: 'https://app.example.com/r/9a8b',
  STARTED_AT: '2025-03-04T05:05:00.000Z',
  TAGS: ['env:prod', 'team:payments', 'critical'],
  GROUP_NAME: 'Payments',
};
const event = alertEventVariablesSchema.parse(eventInput);
const account = { PAGER_ROUTE: 'account-route', ENVIRONMENT: 'production', API_TOKEN: 'hunter2' };
const group = { PAGER_ROUTE: 'payments-route' };
const variables = { event, account, group, secretKeys: ['API_TOKEN'] };
const config = (patch: Partial<WebhookChannelConfig>): WebhookChannelConfig => ({
  url: 'https://hooks.example.com/alert',
  ...patch,
});

describe('renderTemplates: the acceptance template', () => {
  it('uses eq, contains, each with @last, moment, environment and group variables, and renders exactly', () => {
    const template = [
      '{',
      '  "status": "{{#eq ALERT_TYPE "ALERT_FAILURE"}}DOWN{{else}}UP{{/eq}}",',
      '  "severity": "{{#contains TAGS "critical"}}page{{else}}ticket{{/contains}}",',
      '  "check": "{{CHECK_NAME}}",',
      '  "error": "{{CHECK_ERROR_MESSAGE}}",',
      '  "tags": "{{#each TAGS}}{{this}}{{#unless @last}}|{{/unless}}{{/each}}",',
      '  "sentAt": "{{moment "YYYY-MM-DD HH:mm"}}", "since": {{moment "1 hour ago" "X"}},',
      '  "env": "{{ENVIRONMENT}}", "route": "{{PAGER_ROUTE}}", "region": "{{REGION}}",',
      '  "slow": {{#if (gt RESPONSE_TIME 1000)}}true{{else}}false{{/if}}',
      '}',
    ].join('\n');
    const rendered = renderTemplates(config({ template }), variables, { now, region: 'eu-central-1' });
    expect(rendered.body).toBe(
      '{"status":"DOWN","severity":"page","check":"Checkout \\"API\\"","error":"expected 200, got 503\\n\\"Service Unavailable\\"",' +
        '"tags":"env:prod|team:payments|critical","sentAt":"2025-03-04 05:06","since":1741061167,' +
        '"env":"production","route":"payments-route","region":"eu-central-1","slow":true}',
    );
    expect(rendered.warnings).toEqual([]);
  });

  it('renders UP for a recovery from the same template', () => {
    const recovery = { ...variables, event: { ...event, ALERT_TYPE: 'ALERT_RECOVERY' as const } };
    const rendered = renderTemplates(
      config({ template: '{{#eq ALERT_TYPE "ALERT_FAILURE"}}DOWN{{else}}UP{{/eq}}' }),
      recovery,
      { now },
    );
    expect(rendered.body).toBe('UP');
  });
});

// LOCATION_* are set only in a private location's alerts.
const CHECK_VARIABLE_NAMES = EVENT_VARIABLE_NAMES.filter((name) => !name.startsWith('LOCATION_')).sort();

describe('renderTemplates: body', () => {
  it('without a template sends every event variable as JSON', () => {
    const rendered = renderTemplates(config({ template: null }), variables, { now });
    const body = JSON.parse(rendered.body) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(CHECK_VARIABLE_NAMES);
    expect(body).toMatchObject({
      CHECK_NAME: 'Checkout "API"',
      TAGS: ['env:prod', 'team:payments', 'critical'],
      SSL_DAYS_REMAINING: null,
      IS_REMINDER: false,
      REMINDER_SEQUENCE: 0,
    });
    expect(body).not.toHaveProperty('ENVIRONMENT');
    expect(renderTemplates(config({ template: '  \n' }), variables).body).toBe(rendered.body);
  });

  it('sends a JSON body in canonical compact form', () => {
    const rendered = renderTemplates(
      config({ template: '{\n  "a" : 1,\n  "b": [ 1, 2 ], "c": "{{CHECK_TYPE}}"\n}\n' }),
      variables,
    );
    expect(rendered.body).toBe('{"a":1,"b":[1,2],"c":"API"}');
    expect(rendered.body).toBe(JSON.stringify(JSON.parse(rendered.body)));
  });

  it('canonicalJson is JSON.stringify(JSON.parse(body)), or undefined for text', () => {
    expect(canonicalJson('{ "x" : [1, 2.50, "\\u0041"] }')).toBe('{"x":[1,2.5,"A"]}');
    expect(canonicalJson('not json')).toBeUndefined();
  });

  it('leaves a text body as rendered, HTML-escaped', () => {
    const rendered = renderTemplates(config({ template: 'Check {{CHECK_NAME}} is {{ALERT_TYPE}} ' }), variables);
    expect(rendered.body).toBe('Check Checkout &quot;API&quot; is ALERT_FAILURE ');
  });

  it('warns when a template that looks like JSON renders something else, and sends it as text', () => {
    const rendered = renderTemplates(config({ template: '{"value": {{{CHECK_ERROR_MESSAGE}}} }' }), variables);
    expect(rendered.body).toBe(`{"value": ${event.CHECK_ERROR_MESSAGE} }`);
    expect(rendered.warnings).toEqual([
      expect.stringMatching(
        /^the body template looks like JSON but does not render valid JSON: .+; it is sent as text$/,
      ),
    ]);
  });

  it('warns that GET and HEAD send no body', () => {
    expect(renderTemplates(config({ method: 'GET', template: 'x' }), variables).warnings).toEqual([
      'GET requests are sent without a body',
    ]);
    expect(renderTemplates(config({ method: 'HEAD' }), variables).warnings).toEqual([]);
  });
});

describe('renderTemplates: URL, query parameters and headers', () => {
  it('renders the URL and appends the query parameters, each encoded once', () => {
    const rendered = renderTemplates(
      config({
        url: 'https://hooks.example.com/{{uppercase CHECK_TYPE}}/{{CHECK_NAME}}',
        queryParameters: [
          { key: 'check name', value: '{{CHECK_NAME}}' },
          { key: 'tags', value: '{{TAGS}}' },
          { key: 'raw', value: '{{{PAGER_ROUTE}}}' },
        ],
      }),
      variables,
    );
    expect(rendered.url).toBe(
      'https://hooks.example.com/API/Checkout%20%22API%22?check%20name=Checkout%20%22API%22&tags=env%3Aprod%2Cteam%3Apayments%2Ccritical&raw=payments-route',
    );
    expect(new URL(rendered.url).searchParams.get('check name')).toBe('Checkout "API"');
    expect(rendered.method).toBe('POST');
  });

  it('keeps an existing query and puts parameters before the fragment', () => {
    const queryParameters = [{ key: 'b', value: '2' }];
    expect(renderTemplates(config({ url: 'https://x.io/p?a=1#frag', queryParameters }), variables).url).toBe(
      'https://x.io/p?a=1&b=2#frag',
    );
    expect(renderTemplates(config({ url: 'https://x.io/p?', queryParameters }), variables).url).toBe(
      'https://x.io/p?b=2',
    );
  });

  it('warns when the rendered URL is not an http(s) URL', () => {
    const rendered = renderTemplates(config({ url: 'x{{ENVIRONMENT}}/hook' }), variables);
    expect(rendered.warnings).toEqual(['the rendered URL is not a valid http or https URL: xproduction/hook']);
    const encoded = renderTemplates(config({ url: '{{BASE}}/hook' }), {
      ...variables,
      account: { BASE: 'https://x.io' },
    });
    expect(encoded.url).toBe('https%3A%2F%2Fx.io/hook');
    expect(encoded.warnings).toEqual([
      expect.stringMatching(/; to insert a variable that holds a URL, use \{\{\{NAME\}\}\}$/),
    ]);
    expect(
      renderTemplates(config({ url: '{{{BASE}}}/hook' }), { ...variables, account: { BASE: 'https://x.io' } }),
    ).toMatchObject({ url: 'https://x.io/hook', warnings: [] });
  });

  it('renders header values with CR and LF removed, even from raw insertions', () => {
    const injected = { ...variables, event: { ...event, CHECK_NAME: 'x\r\nX-Injected: yes' } };
    const rendered = renderTemplates(
      config({
        headers: [
          { key: 'X-Check', value: '{{CHECK_NAME}}' },
          { key: 'X-Raw', value: '{{{CHECK_NAME}}}' },
          { key: 'Authorization', value: 'Bearer {{PAGER_ROUTE}}' },
        ],
      }),
      injected,
    );
    expect(rendered.headers).toEqual({
      'X-Check': 'xX-Injected: yes',
      'X-Raw': 'xX-Injected: yes',
      Authorization: 'Bearer payments-route',
    });
    expect(rendered.warnings).toEqual(['header X-Raw: line breaks and control characters were removed from the value']);
  });

  it('drops invalid, service-owned and repeated headers with a warning', () => {
    const rendered = renderTemplates(
      config({
        headers: [
          { key: 'Bad Name', value: 'x' },
          { key: 'X-Service-Signature', value: 'forged' },
          { key: 'content-length', value: '1' },
          { key: 'X-Team', value: 'a' },
          { key: 'x-team', value: 'b' },
        ],
      }),
      variables,
    );
    expect(rendered.headers).toEqual({ 'x-team': 'b' });
    expect(rendered.warnings).toEqual([
      'header name "Bad Name" is not a valid HTTP header name; it is not sent',
      'header X-Service-Signature is set by the service; the configured value is not sent',
      'header content-length is set by the service; the configured value is not sent',
      'header x-team is set more than once; the last value is sent',
    ]);
  });

  it('throws ValidationError naming the field of a template that does not parse', () => {
    expect(() => renderTemplates(config({ url: 'https://x.io/{{A' }), variables)).toThrow(ValidationError);
    expect(() =>
      renderTemplates(
        config({
          headers: [
            { key: 'A', value: 'ok' },
            { key: 'B', value: '{{#if}}{{/if}}' },
          ],
        }),
        variables,
      ),
    ).toThrow(/^config\.headers\[1\]\.value: line 1, column 1: /);
    expect(() => renderTemplates(config({ queryParameters: [{ key: 'q', value: '{{nope 1}}' }] }), variables)).toThrow(
      /^config\.queryParameters\[0\]\.value: /,
    );
    expect(() => renderTemplates(config({ template: '{"a": "{{A}"}' }), variables)).toThrow(
      /^config\.template: line 1, column 11: /,
    );
  });
});

describe('renderTemplates: variables', () => {
  it('event variables override group variables, which override account variables', () => {
    const rendered = renderTemplates(
      config({ template: '{{CHECK_TYPE}} {{PAGER_ROUTE}} {{ENVIRONMENT}} {{ONLY_GROUP}}' }),
      {
        event,
        account: { CHECK_TYPE: 'from account', PAGER_ROUTE: 'account', ENVIRONMENT: 'account' },
        group: { CHECK_TYPE: 'from group', PAGER_ROUTE: 'group', ONLY_GROUP: 'g' },
      },
    );
    expect(rendered.body).toBe('API group account g');
  });

  it('renders a secret as empty and warns, even if its value was passed', () => {
    const rendered = renderTemplates(
      config({
        url: 'https://x.io/?t={{API_TOKEN}}',
        headers: [{ key: 'X-Token', value: '{{{API_TOKEN}}}' }],
        template: 'token={{API_TOKEN}}',
      }),
      variables,
    );
    expect(rendered.body).toBe('token=');
    expect(rendered.headers).toEqual({ 'X-Token': '' });
    expect(JSON.stringify(rendered)).not.toContain('hunter2');
    expect(rendered.warnings).toEqual(['API_TOKEN is a secret; secrets are not available to templates']);
  });

  it('a group variable of the same name as an account secret is not a secret', () => {
    const rendered = renderTemplates(config({ template: '{{API_TOKEN}}' }), {
      ...variables,
      group: { API_TOKEN: 'group-value' },
    });
    expect(rendered.body).toBe('group-value');
    expect(rendered.warnings).toEqual([]);
  });

  it('warns once about each unknown variable, but not about event variables that are null', () => {
    const rendered = renderTemplates(
      config({ url: 'https://x.io/{{NOPE}}', template: '{{NOPE}} {{SSL_DAYS_REMAINING}} {{@root.ALSO_NOPE}}' }),
      variables,
    );
    expect(rendered.warnings).toEqual([
      'NOPE is not a known variable; it renders as empty',
      'ALSO_NOPE is not a known variable; it renders as empty',
    ]);
  });

  it('mergeVariables leaves secrets out', () => {
    expect(mergeVariables(variables)).not.toHaveProperty('API_TOKEN');
  });

  it('mergedVariables is mergeVariables made once per set of variables, and again when a part is replaced', () => {
    const set = { ...variables };
    const merged = mergedVariables(set);
    expect({ ...merged }).toEqual({ ...mergeVariables(set) });
    expect(mergedVariables(set)).toBe(merged);
    expect(Object.isFrozen(merged)).toBe(true);
    // Each part replaced gives the merge of the new parts.
    const replaced = [
      { event: { ...event, CHECK_NAME: 'renamed' } },
      { account: { ...account, ENVIRONMENT: 'staging' } },
      { group: { PAGER_ROUTE: 'group-route' } },
      { secretKeys: [] as string[] },
    ];
    for (const part of replaced) {
      Object.assign(set, part);
      expect({ ...mergedVariables(set) }).toEqual({ ...mergeVariables(set) });
    }
    expect(mergedVariables(set)).toHaveProperty('CHECK_NAME', 'renamed');
    expect(mergedVariables(set)).toHaveProperty('API_TOKEN', 'hunter2');
    // Renders that share the merged set give what each alone gives.
    const config: WebhookChannelConfig = {
      url: 'https://x.example/{{CHECK_NAME}}',
      template: '{{CHECK_NAME}} {{ENVIRONMENT}}',
    };
    const first = renderTemplates(config, set, { now });
    expect(renderTemplates(config, set, { now })).toEqual(first);
    expect(first.body).toBe('renamed staging');
  });

  it('the event schema fills every optional variable and refuses an unknown alert type', () => {
    const minimal = alertEventVariablesSchema.parse({
      CHECK_NAME: 'n',
      CHECK_ID: 'i',
      CHECK_TYPE: 'API',
      ALERT_TITLE: 't',
      ALERT_TYPE: 'ALERT_SSL',
    });
    expect(Object.keys(minimal).sort()).toEqual(CHECK_VARIABLE_NAMES);
    expect(alertEventVariablesSchema.safeParse({ ...minimal, ALERT_TYPE: 'ALERT_MAYBE' }).success).toBe(false);
  });
});
