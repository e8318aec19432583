/**
 * Request examples for the main operations, written into the OpenAPI document as media-type
 * `examples`. Each one is a request a new user can send as it is (test/control-plane/openapi-examples.test.ts
 * sends every one to a real server and expects a 2xx), so /docs shows what works, not what parses.
 */
export interface RequestExample {
  summary: string;
  value: unknown;
}

/** Keyed by "METHOD /path" as the document writes paths. */
export const requestExamples: Record<string, Record<string, RequestExample>> = {
  'POST /v1/variables': {
    plain: { summary: 'A plain variable', value: { key: 'BASE_URL', value: 'https://api.example.com' } },
    secret: {
      summary: 'A secret: write-only, never shown again, decrypted only by the runner',
      value: { key: 'API_TOKEN', value: 's3cr3t-t0ken', secret: true },
    },
  },
  'POST /v1/checks': {
    api: {
      summary: 'An API check with assertions, using a variable',
      value: {
        name: 'Orders API',
        checkType: 'API',
        frequency: 5,
        locations: ['eu-west-1'],
        tags: ['orders'],
        request: {
          method: 'GET',
          url: 'https://api.example.com/orders?limit=1',
          headers: [{ key: 'authorization', value: 'Bearer {{API_TOKEN}}' }],
          assertions: [
            { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
            { source: 'JSON_BODY', property: '$.items', comparison: 'NOT_EMPTY' },
            { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '1500' },
          ],
        },
      },
    },
    url: {
      summary: 'A URL monitor: any 2xx passes',
      value: { name: 'Home page', checkType: 'URL', frequency: 1, request: { url: 'https://www.example.com/' } },
    },
    tcp: {
      summary: 'A TCP check on a database port',
      value: {
        name: 'Postgres port',
        checkType: 'TCP',
        frequency: 5,
        request: {
          hostname: 'db.example.com',
          port: 5432,
          assertions: [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500' }],
        },
      },
    },
    dns: {
      summary: 'A DNS check: the A record resolves',
      value: {
        name: 'example.com A',
        checkType: 'DNS',
        frequency: 10,
        request: {
          query: 'example.com',
          recordType: 'A',
          assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR' }],
        },
      },
    },
    heartbeat: {
      summary: 'A heartbeat: the response carries the ping URL for your cron job',
      value: {
        name: 'Nightly backup',
        checkType: 'HEARTBEAT',
        heartbeat: { period: 1, periodUnit: 'days', grace: 30, graceUnit: 'minutes' },
      },
    },
  },
  'POST /v1/checks/test': {
    api: {
      summary: 'Run a definition once without saving it',
      value: {
        name: 'Try it',
        checkType: 'API',
        request: {
          url: 'https://api.example.com/health',
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
        },
      },
    },
  },
  'POST /v1/alert-channels': {
    webhook: {
      summary: 'A signed webhook with a JSON template',
      value: {
        type: 'WEBHOOK',
        config: {
          name: 'On-call',
          url: 'https://hooks.example.com/vigil',
          method: 'POST',
          headers: [{ key: 'x-team', value: 'payments' }],
          template: '{"text": "{{ALERT_TITLE}}", "check": "{{CHECK_NAME}}", "link": "{{RESULT_LINK}}"}',
          webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
        sendFailure: true,
        sendRecovery: true,
        sendDegraded: false,
      },
    },
    email: {
      summary: "Email through the server's SMTP relay (VIGIL_SMTP_URL)",
      value: { type: 'EMAIL', config: { name: 'On-call email', address: 'oncall@example.com' }, sendDegraded: true },
    },
    slack: {
      summary: 'A Slack incoming webhook (Block Kit)',
      value: {
        type: 'SLACK',
        config: {
          name: 'Slack #alerts',
          url: 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXX',
          channel: '#alerts',
        },
      },
    },
    pagerduty: {
      summary: 'PagerDuty Events API v2: a failure triggers, the recovery resolves',
      value: {
        type: 'PAGERDUTY',
        config: { name: 'PagerDuty', serviceKey: 'R0123456789abcdefABCDEF012345678', serviceName: 'Checkout' },
      },
    },
    opsgenie: {
      summary: 'Opsgenie (EU): a failure creates an alert, the recovery closes it',
      value: {
        type: 'OPSGENIE',
        config: { name: 'Opsgenie', apiKey: '0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d', region: 'EU', priority: 'P2' },
      },
    },
    msteams: {
      summary: 'A Microsoft Teams Workflows webhook (Adaptive Card)',
      value: { type: 'MSTEAMS', config: { name: 'Teams', url: 'https://example.webhook.office.com/workflows/abc' } },
    },
  },
  'POST /v1/alert-channels/preview': {
    failure: {
      summary: 'Render a template for ALERT_FAILURE without sending it',
      value: {
        config: {
          name: 'On-call',
          url: 'https://hooks.example.com/vigil',
          template: '{"text": "{{ALERT_TITLE}}", "at": "{{moment STARTED_AT "YYYY-MM-DD HH:mm"}}"}',
        },
        alertType: 'ALERT_FAILURE',
      },
    },
  },
  'POST /v1/maintenance-windows': {
    weekly: {
      summary: 'A weekly deploy window: runs of checks tagged "api" are paused for 30 minutes, every Tuesday night',
      value: {
        name: 'Weekly deploy',
        tags: ['api'],
        startsAt: '2026-12-01T22:00:00Z',
        endsAt: '2026-12-01T22:30:00Z',
        repeatUnit: 'WEEK',
        repeatInterval: 1,
      },
    },
    migration: {
      summary: 'A one-off migration: the checks keep running and are stored, but nobody is alerted',
      value: {
        name: 'Database migration',
        tags: ['db'],
        startsAt: '2026-12-05T02:00:00Z',
        endsAt: '2026-12-05T04:00:00Z',
        pauseRuns: false,
      },
    },
  },
  'POST /v1/private-locations': {
    office: {
      summary: 'An office network; checks list "office-berlin" in locations to run from its agents',
      value: { name: 'Berlin office', slugName: 'office-berlin', icon: 'location' },
    },
  },
  'POST /v1/api-keys': {
    user: { summary: 'A key for yourself, with your roles', value: { name: 'laptop', type: 'user' } },
  },
};

type Media = { schema?: unknown; examples?: Record<string, RequestExample> };
type Operation = { requestBody?: { content?: Record<string, Media> } };

/** Writes the examples into a finished document (paths use {param}, methods lower case). */
export function addRequestExamples(document: Record<string, unknown>): void {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [operation, examples] of Object.entries(requestExamples)) {
    const [method, path] = operation.split(' ') as [string, string];
    const media = paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json'];
    if (!media) throw new Error(`OpenAPI example for ${operation}: no such operation with a JSON body`);
    media.examples = examples;
  }
}
