import type { ResultCheckType } from '#domain';

/** The analytics path segment for each check type: GET /v1/analytics/{kind}/{id}. */
export const analyticsKinds = {
  'api-checks': 'API',
  'browser-checks': 'BROWSER',
  'multistep-checks': 'MULTI_STEP',
  'playwright-checks': 'PLAYWRIGHT',
  'tcp-checks': 'TCP',
  'url-monitors': 'URL',
  'heartbeat-checks': 'HEARTBEAT',
  'dns-checks': 'DNS',
} as const satisfies Record<string, ResultCheckType>;

export type AnalyticsKind = keyof typeof analyticsKinds;

/** Rate-limit buckets by kind; the spec limits multistep analytics to 30 requests per 60 s. */
export const kindRateLimitBuckets: Partial<Record<AnalyticsKind, string>> = {
  'multistep-checks': 'analytics-multistep',
};
