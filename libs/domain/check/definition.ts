import { z } from 'zod';

/**
 * What a managed check runs, per type. Field names follow Checkly's public API where it has them,
 * so a Checkly user can guess them. A check with none of these fields is an *external* check: its
 * results come from outside producers through ingestion, as before the runner existed.
 */

export const assertionSources = [
  'STATUS_CODE',
  'JSON_BODY',
  'TEXT_BODY',
  'HEADERS',
  'RESPONSE_TIME',
  'RESPONSE_DATA',
  'RESPONSE_CODE',
  'TEXT_ANSWER',
  'JSON_ANSWER',
] as const;
export type AssertionSource = (typeof assertionSources)[number];

export const assertionComparisons = [
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
] as const;
export type AssertionComparison = (typeof assertionComparisons)[number];

/** Which assertion sources each runnable check type accepts. */
export const assertionSourcesByType = {
  API: ['STATUS_CODE', 'JSON_BODY', 'TEXT_BODY', 'HEADERS', 'RESPONSE_TIME'],
  URL: ['STATUS_CODE'],
  TCP: ['RESPONSE_DATA', 'RESPONSE_TIME'],
  DNS: ['RESPONSE_CODE', 'TEXT_ANSWER', 'JSON_ANSWER', 'RESPONSE_TIME'],
} as const satisfies Record<string, readonly AssertionSource[]>;

export const assertionSchema = z
  .object({
    source: z.enum(assertionSources),
    /** JSONPath for JSON_BODY/JSON_ANSWER, header name for HEADERS; empty otherwise. */
    property: z.string().max(1024).default(''),
    comparison: z.enum(assertionComparisons),
    target: z.string().max(4096).default(''),
  })
  .strict();
export type Assertion = z.output<typeof assertionSchema>;

const assertions = z.array(assertionSchema).max(50).default([]);
const keyValue = z.object({ key: z.string().min(1).max(1024), value: z.string().max(16_384) }).strict();

/**
 * http(s) only: a check target is never a file:, data: or other scheme. A regex rather than a
 * refine, so OpenAPI documents exactly the rule the API applies (schemathesis holds it to that).
 */
export const httpUrlSchema = z
  .string()
  .min(1)
  .max(2048)
  .regex(new RegExp('^[Hh][Tt][Tt][Pp][Ss]?://[\\s\\S]*$'), 'must be an http(s) URL');

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export const bodyTypes = ['NONE', 'JSON', 'FORM', 'RAW', 'GRAPHQL'] as const;

export const apiRequestSchema = z
  .object({
    method: z.enum(httpMethods).default('GET'),
    /** May hold {{VAR}} placeholders, so it is checked as a URL only once they are resolved. */
    url: httpUrlSchema,
    headers: z.array(keyValue).max(100).default([]),
    queryParameters: z.array(keyValue).max(100).default([]),
    body: z.string().max(1_000_000).default(''),
    bodyType: z.enum(bodyTypes).default('NONE'),
    followRedirects: z.boolean().default(true),
    /**
     * Like curl's --location-trusted: headers, credentials and body the check sets go on to a
     * redirect's target even when it is another origin (scheme, host or port). Off, they are sent
     * to the check's own origin only, as browsers and curl do. Checkly has no such field.
     */
    followRedirectsWithCredentials: z.boolean().default(false),
    skipSSL: z.boolean().default(false),
    basicAuth: z
      .object({ username: z.string().max(1024), password: z.string().max(1024) })
      .strict()
      .optional(),
    assertions,
  })
  .strict();
export type ApiRequest = z.output<typeof apiRequestSchema>;

export const urlRequestSchema = z
  .object({
    url: httpUrlSchema,
    followRedirects: z.boolean().default(true),
    skipSSL: z.boolean().default(false),
    assertions,
  })
  .strict();
export type UrlRequest = z.output<typeof urlRequestSchema>;

export const tcpRequestSchema = z
  .object({
    hostname: z.string().min(1).max(253),
    port: z.number().int().min(1).max(65_535),
    data: z.string().max(65_536).optional(),
    ipFamily: z.enum(['IPv4', 'IPv6']).default('IPv4'),
    assertions,
  })
  .strict();
export type TcpRequest = z.output<typeof tcpRequestSchema>;

export const dnsRecordTypes = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA'] as const;
/**
 * As stored. The rules that came later (refineDnsRequest) apply to input only, so checks saved
 * before them still read back; the runner applies them again to what it runs.
 */
export const dnsRequestSchema = z
  .object({
    query: z.string().min(1).max(253),
    recordType: z.enum(dnsRecordTypes).default('A'),
    nameServer: z.string().min(1).max(253).optional(),
    /** The nameServer's port; without a nameServer the system resolver is asked, on port 53. */
    port: z.number().int().min(1).max(65_535).optional(),
    protocol: z.enum(['UDP', 'TCP']).default('UDP'),
    assertions,
  })
  .strict();
export type DnsRequest = z.output<typeof dnsRequestSchema>;

const PLACEHOLDER = /\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/g;
// Letters, digits, hyphens and underscores (_dmarc, _sip._tcp), and any non-ASCII letter of an IDN.
const DNS_LABEL = /^(?:\*|[A-Za-z0-9_\-\u0080-\uffff]{1,63})$/;

/** Why a query name (with {{VAR}} placeholders left as they are) is not a DNS name, if it is not. */
export function dnsQueryProblem(query: string): string | undefined {
  // A placeholder stands for text only known at run time, where the runner checks the whole name.
  const name = query.replace(PLACEHOLDER, 'x').replace(/\.$/, '');
  if (/[\p{Cc}\s]/u.test(name)) return 'must not contain spaces or control characters';
  if (name === '') return query === '.' ? undefined : 'must not be empty'; // "." asks about the root zone
  const labels = name.split('.');
  if (labels.some((label) => label === '')) return 'must not have an empty label (two dots, or a leading dot)';
  const bad = labels.find((label) => !DNS_LABEL.test(label));
  if (bad !== undefined)
    return bad.length > 63
      ? 'each label (between dots) must be at most 63 characters'
      : 'may only hold letters, digits, hyphens, underscores and dots';
  return undefined;
}

/**
 * The input rules of a DNS request: a port needs a nameServer (the system resolver is the
 * operator's and is asked on port 53 only), and the query must be a DNS name.
 */
export function refineDnsRequest(
  request: DnsRequest | undefined,
  ctx: z.RefinementCtx,
  path: PropertyKey[] = [],
): void {
  if (!request || typeof request.query !== 'string') return;
  if (request.port !== undefined && request.nameServer === undefined)
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'port'],
      message: 'needs a nameServer: without one the query goes to the system resolver, on port 53 only',
    });
  const problem = dnsQueryProblem(request.query);
  if (problem) ctx.addIssue({ code: 'custom', path: [...path, 'query'], message: `must be a DNS name: ${problem}` });
}

export const timeUnits = ['seconds', 'minutes', 'hours', 'days'] as const;
export type TimeUnit = (typeof timeUnits)[number];
export const heartbeatSchema = z
  .object({
    period: z.number().int().min(1).max(100_000),
    periodUnit: z.enum(timeUnits).default('minutes'),
    grace: z.number().int().min(0).max(100_000).default(0),
    graceUnit: z.enum(timeUnits).default('minutes'),
  })
  .strict();
export type HeartbeatDefinition = z.output<typeof heartbeatSchema>;

const UNIT_SECONDS: Record<TimeUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };
export function toSeconds(amount: number, unit: TimeUnit): number {
  return amount * UNIT_SECONDS[unit];
}

export const browserSchema = z
  .object({
    url: httpUrlSchema,
    waitUntil: z.enum(['load', 'domcontentloaded', 'networkidle', 'commit']).default('load'),
    viewport: z
      .object({ width: z.number().int().min(200).max(4096), height: z.number().int().min(200).max(4096) })
      .strict()
      .default({ width: 1280, height: 720 }),
    artifacts: z
      .enum(['ALWAYS', 'ON_FAILURE', 'NEVER'])
      .default('ON_FAILURE')
      .describe('When a full-page screenshot and the Playwright trace are kept: on failed or degraded runs by default'),
    shareArtifacts: z
      .boolean()
      .default(false)
      .describe(
        'Traces may hold what the page was sent or typed, secrets included: only ADMIN and OWNER read them unless this is true',
      ),
  })
  .strict();
export type BrowserDefinition = z.output<typeof browserSchema>;

export const retryStrategySchema = z
  .object({
    type: z.enum(['NONE', 'FIXED', 'LINEAR', 'EXPONENTIAL']).default('NONE'),
    maxRetries: z.number().int().min(0).max(10).default(0),
    baseBackoffSeconds: z.number().int().min(0).max(600).default(60),
    maxDurationSeconds: z.number().int().min(0).max(600).default(600),
    sameRegion: z.boolean().default(true),
  })
  .strict();
export type RetryStrategy = z.output<typeof retryStrategySchema>;
