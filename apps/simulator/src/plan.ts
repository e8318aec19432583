import { checkTypes, type CheckFrequency, type CheckType } from '#domain';
import type { Rng } from './random.ts';

/** The checks the simulator registers: plausible names, frequencies and locations per type. */

/** Roughly what a monitoring account holds: mostly API and URL checks, a few of the rest. */
export const defaultTypeMix: Readonly<Record<CheckType, number>> = {
  API: 30,
  URL: 20,
  BROWSER: 12,
  PLAYWRIGHT: 8,
  MULTI_STEP: 8,
  TCP: 8,
  DNS: 7,
  HEARTBEAT: 7,
};

export const defaultLocations = ['eu-west-1', 'us-east-1', 'ap-southeast-1'] as const;

const frequencies: Readonly<Record<CheckType, readonly CheckFrequency[]>> = {
  API: [1, 1, 2, 5, 10],
  URL: [1, 5, 5, 10],
  TCP: [1, 5, 10],
  DNS: [5, 10, 30],
  MULTI_STEP: [5, 10, 15],
  BROWSER: [5, 10, 15, 30],
  PLAYWRIGHT: [10, 15, 30, 60],
  HEARTBEAT: [5, 15, 60, 1440],
};

const services = [
  'checkout',
  'login',
  'search',
  'orders',
  'payments',
  'inventory',
  'profile',
  'catalog',
  'cart',
  'status',
  'billing',
  'shipping',
];

const labels: Readonly<Record<CheckType, string>> = {
  API: 'API',
  URL: 'homepage',
  TCP: 'TCP port',
  DNS: 'DNS record',
  MULTI_STEP: 'API flow',
  BROWSER: 'page',
  PLAYWRIGHT: 'user journey',
  HEARTBEAT: 'nightly job',
};

/** The body of POST /v1/checks for one simulated check. */
export interface PlannedCheck {
  name: string;
  checkType: CheckType;
  frequency: CheckFrequency;
  tags: string[];
  locations: string[];
  sslCheckDomain?: string;
}

export interface PlanOptions {
  count: number;
  /** The types to draw from; empty means the default mix of all eight. */
  types: readonly CheckType[];
  locations: readonly string[];
  /** Tags every check of this run, so a demo's checks can be found (and deleted) together. */
  runTag: string;
}

export function planChecks(rng: Rng, options: PlanOptions): PlannedCheck[] {
  if (options.locations.length === 0) throw new Error('at least one location is needed');
  return chooseTypes(rng, options).map((checkType, index) => {
    const service = rng.pick(services);
    // Heartbeats are pinged by the job, not run from a location; they report one.
    const locationCount = checkType === 'HEARTBEAT' ? 1 : rng.int(1, Math.min(3, options.locations.length));
    const planned: PlannedCheck = {
      name: `${capitalised(service)} ${labels[checkType]} #${index + 1}`,
      checkType,
      frequency: rng.pick(frequencies[checkType]),
      tags: ['simulator', options.runTag, service],
      locations: rng.shuffled(options.locations).slice(0, locationCount),
    };
    if (hasSsl(checkType) && rng.chance(0.6)) planned.sslCheckDomain = `${service}.example.com`;
    return planned;
  });
}

export function hasSsl(checkType: CheckType): boolean {
  return checkType === 'API' || checkType === 'URL' || checkType === 'BROWSER' || checkType === 'PLAYWRIGHT';
}

/** Every requested type appears at least once when there are enough checks; the rest follow the mix. */
function chooseTypes(rng: Rng, options: PlanOptions): CheckType[] {
  const pool = options.types.length > 0 ? [...new Set(options.types)] : [...checkTypes];
  const weights = pool.map((type) => [type, options.types.length > 0 ? 1 : defaultTypeMix[type]] as const);
  const chosen = rng.shuffled(pool).slice(0, options.count);
  while (chosen.length < options.count) chosen.push(rng.weighted(weights));
  return rng.shuffled(chosen);
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
