import { InvalidArgumentError } from 'commander';

/** Check types as people type them ("api", "API", "api-checks", "MULTI_STEP", "url-monitors") → one canonical short name. */
const SHORT_NAMES = ['api', 'browser', 'multistep', 'playwright', 'tcp', 'url', 'heartbeat', 'dns'] as const;
export type ShortCheckType = (typeof SHORT_NAMES)[number];

const ANALYTICS_KINDS: Record<ShortCheckType, string> = {
  api: 'api-checks',
  browser: 'browser-checks',
  multistep: 'multistep-checks',
  playwright: 'playwright-checks',
  tcp: 'tcp-checks',
  url: 'url-monitors',
  heartbeat: 'heartbeat-checks',
  dns: 'dns-checks',
};

export function shortCheckType(raw: string): ShortCheckType {
  const key = raw
    .toLowerCase()
    .replace(/[-_\s]/g, '')
    .replace(/(checks|check|monitors|monitor)$/, '');
  const found = SHORT_NAMES.find((name) => name === key);
  if (!found) throw new InvalidArgumentError(`unknown check type; use one of ${SHORT_NAMES.join(', ')}`);
  return found;
}

/** The {kind} of GET /v1/analytics/{kind}/{id}. */
export function analyticsKind(raw: string): string {
  return ANALYTICS_KINDS[shortCheckType(raw)];
}
