import type { Check, Operations } from '../api.gen.ts';

/** The check editor's form: what the inputs hold, read from a check and written back as a request body. */
export type CheckBody = Operations['POST /v1/checks']['body'];
export type Assertion = { source: string; property?: string; comparison: string; target?: string };

export const TYPES = ['API', 'URL', 'TCP', 'DNS', 'HEARTBEAT', 'BROWSER', 'MULTI_STEP', 'PLAYWRIGHT'] as const;
export const SCRIPT_TYPES: ReadonlySet<string> = new Set(['MULTI_STEP', 'PLAYWRIGHT']);
export const SOURCES: Record<string, string[]> = {
  API: ['STATUS_CODE', 'JSON_BODY', 'TEXT_BODY', 'HEADERS', 'RESPONSE_TIME'],
  URL: ['STATUS_CODE'],
  TCP: ['RESPONSE_DATA', 'RESPONSE_TIME'],
  DNS: ['RESPONSE_CODE', 'TEXT_ANSWER', 'JSON_ANSWER', 'RESPONSE_TIME'],
};
export const COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'GREATER_THAN',
  'LESS_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_NULL',
  'NOT_NULL',
];
export const FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];

export const STARTERS: Record<'MULTI_STEP' | 'PLAYWRIGHT' | 'BROWSER', string> = {
  MULTI_STEP: `import { test, expect } from '@playwright/test';

// The check's variables (account, then group) are in process.env, secrets included.
const baseUrl = process.env.BASE_URL ?? 'https://example.com';

test('API is up', async ({ request }) => {
  await test.step('GET /', async () => {
    const response = await request.get(baseUrl);
    expect(response.status()).toBe(200);
  });
});
`,
  PLAYWRIGHT: `import { test, expect } from '@playwright/test';

test('home page', async ({ page }) => {
  await test.step('open', async () => {
    const response = await page.goto(process.env.BASE_URL ?? 'https://example.com');
    expect(response?.status()).toBeLessThan(400);
  });
  await test.step('title', async () => {
    await expect(page).toHaveTitle(/Example/);
  });
});
`,
  BROWSER: `import { test, expect } from '@playwright/test';

test('page loads', async ({ page }) => {
  const response = await page.goto(process.env.BASE_URL ?? 'https://example.com');
  expect(response?.status()).toBeLessThan(400);
});
`,
};

export interface Form {
  name: string;
  checkType: (typeof TYPES)[number];
  frequency: number;
  locations: string;
  tags: string;
  activated: boolean;
  url: string;
  method: string;
  headers: string;
  body: string;
  hostname: string;
  port: string;
  query: string;
  recordType: string;
  nameServer: string;
  period: string;
  periodUnit: string;
  grace: string;
  graceUnit: string;
  assertions: Assertion[];
  /** The test file of a MULTI_STEP or PLAYWRIGHT check, or of a BROWSER check written as a script. */
  script: string;
  /** A BROWSER check opens a URL or runs a script. */
  browserMode: 'url' | 'script';
  /** Empty: the account's default runtime. */
  runtimeId: string;
  /** A PLAYWRIGHT check made of several files (from the API or the CLI): kept as it is, not edited here. */
  files: Array<{ path: string; content: string }> | null;
}

export const empty: Form = {
  name: '',
  checkType: 'API',
  frequency: 10,
  locations: '',
  tags: '',
  activated: true,
  url: '',
  method: 'GET',
  headers: '',
  body: '',
  hostname: '',
  port: '443',
  query: '',
  recordType: 'A',
  nameServer: '',
  period: '5',
  periodUnit: 'minutes',
  grace: '1',
  graceUnit: 'minutes',
  assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
  script: '',
  browserMode: 'url',
  runtimeId: '',
  files: null,
};

/** Whether the form edits a script (and so shows the code editor). */
export const usesScript = (f: Pick<Form, 'checkType' | 'browserMode'>) =>
  SCRIPT_TYPES.has(f.checkType) || (f.checkType === 'BROWSER' && f.browserMode === 'script');

export function fromCheck(c: Check): Form {
  // The definition's shape depends on the type; the form reads what is there.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const any = c as Record<string, any>;
  const req = any.request ?? {};
  return {
    ...empty,
    name: c.name,
    checkType: c.checkType as Form['checkType'],
    frequency: c.frequency,
    activated: c.activated,
    locations: c.locations.join(', '),
    tags: c.tags.join(', '),
    url: req.url ?? any.browser?.url ?? '',
    method: req.method ?? 'GET',
    headers: (req.headers ?? []).map((h: { key: string; value: string }) => `${h.key}: ${h.value}`).join('\n'),
    body: req.body ?? '',
    hostname: req.hostname ?? '',
    port: String(req.port ?? 443),
    query: req.query ?? '',
    recordType: req.recordType ?? 'A',
    nameServer: req.nameServer ?? '',
    period: String(any.heartbeat?.period ?? 5),
    periodUnit: any.heartbeat?.periodUnit ?? 'minutes',
    grace: String(any.heartbeat?.grace ?? 1),
    graceUnit: any.heartbeat?.graceUnit ?? 'minutes',
    assertions: req.assertions ?? [],
    script: typeof any.script === 'string' ? any.script : '',
    browserMode: c.checkType === 'BROWSER' && typeof any.script === 'string' ? 'script' : 'url',
    runtimeId: typeof c.runtimeId === 'string' ? c.runtimeId : '',
    files: Array.isArray(any.files) ? any.files : null,
  };
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function toBody(f: Form): CheckBody {
  const common = {
    name: f.name,
    frequency: f.frequency as 10,
    // The API refuses an unknown location with a 400 that names it; the form passes what was typed.
    locations: list(f.locations) as NonNullable<CheckBody['locations']>,
    tags: list(f.tags),
    activated: f.activated,
  };
  const assertions = f.assertions.map((a) => ({ ...a, property: a.property || undefined })) as never;
  // A script check names its runtime, or leaves it out for the account's default.
  const code = { ...(f.files ? { files: f.files } : { script: f.script }), runtimeId: f.runtimeId || undefined };
  switch (f.checkType) {
    case 'API':
      return {
        ...common,
        checkType: 'API',
        request: {
          url: f.url,
          method: f.method as 'GET',
          body: f.body || undefined,
          headers: f.headers
            .split('\n')
            .filter((l) => l.includes(':'))
            .map((l) => ({ key: l.slice(0, l.indexOf(':')).trim(), value: l.slice(l.indexOf(':') + 1).trim() })),
          assertions,
        },
      };
    case 'URL':
      return { ...common, checkType: 'URL', request: { url: f.url, assertions } };
    case 'TCP':
      return {
        ...common,
        checkType: 'TCP',
        request: { hostname: f.hostname, port: Number(f.port), assertions },
      } as CheckBody;
    case 'DNS':
      return {
        ...common,
        checkType: 'DNS',
        request: { query: f.query, recordType: f.recordType as 'A', nameServer: f.nameServer || undefined, assertions },
      } as CheckBody;
    case 'HEARTBEAT':
      return {
        ...common,
        checkType: 'HEARTBEAT',
        heartbeat: {
          period: Number(f.period),
          periodUnit: f.periodUnit as 'minutes',
          grace: Number(f.grace),
          graceUnit: f.graceUnit as 'minutes',
        },
      } as CheckBody;
    case 'BROWSER':
      return (
        f.browserMode === 'script'
          ? { ...common, checkType: 'BROWSER', script: f.script, runtimeId: f.runtimeId || undefined }
          : { ...common, checkType: 'BROWSER', browser: { url: f.url } }
      ) as CheckBody;
    case 'MULTI_STEP':
      return { ...common, checkType: 'MULTI_STEP', script: f.script, runtimeId: f.runtimeId || undefined } as CheckBody;
    case 'PLAYWRIGHT':
      return { ...common, checkType: 'PLAYWRIGHT', ...code } as CheckBody;
  }
}
