import { ValidationError } from '#core';

/**
 * The public locations a check may name when none are configured (VIGIL_LOCATIONS): Checkly's
 * public location names, so a check written for Checkly keeps its locations. A runner serves one
 * of them through VIGIL_RUNNER_LOCATION; the runner's own and default locations are always known.
 */
export const PUBLIC_LOCATIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'sa-east-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'eu-south-1',
  'me-south-1',
  'af-south-1',
  'ap-east-1',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
] as const;

/** Every location runs the check once per window: more than this is a fan-out, not monitoring. */
export const MAX_CHECK_LOCATIONS = 20;

/**
 * Which locations a check may name, in one place, per account: the runner locations, and the
 * account's own private locations by slugName.
 */
export interface LocationCatalogue {
  /** The locations every account may name (the OpenAPI document lists them). */
  readonly publicLocations: readonly string[];
  /** The locations this account may name. */
  known(accountId: string): Promise<readonly string[]>;
  /**
   * A 400 naming the first unknown, repeated or surplus location. A heartbeat is watched by the
   * cluster's runners (its pings reach the API), so it may not name a private location.
   */
  assertUsable(accountId: string, locations: readonly string[], options?: { heartbeat?: boolean }): Promise<void>;
}

export function createLocationCatalogue(options: {
  publicLocations: readonly string[];
  /** The slugNames of the account's private locations (read model); none when absent. */
  privateSlugs?: (accountId: string) => Promise<readonly string[]>;
  max?: number;
}): LocationCatalogue {
  const publicSet = new Set(options.publicLocations);
  const max = options.max ?? MAX_CHECK_LOCATIONS;
  const known = async (accountId: string): Promise<readonly string[]> => [
    ...publicSet,
    ...((await options.privateSlugs?.(accountId)) ?? []),
  ];
  return {
    publicLocations: [...publicSet],
    known,
    async assertUsable(accountId, locations, check = {}) {
      if (locations.length > max)
        throw new ValidationError(
          `locations: at most ${max} locations per check (each runs the check once per window); got ${locations.length}`,
        );
      if (locations.length === 0) return;
      const usable = new Set(await known(accountId));
      const seen = new Set<string>();
      locations.forEach((location, index) => {
        if (!usable.has(location))
          throw new ValidationError(
            `locations[${index}]: unknown location ${JSON.stringify(location)}; known locations: ${[...usable].join(', ')}`,
          );
        if (check.heartbeat && !publicSet.has(location))
          throw new ValidationError(
            `locations[${index}]: ${JSON.stringify(location)} is a private location; a HEARTBEAT check is watched by Vigil's runners, which its pings reach, so name runner locations only`,
          );
        if (seen.has(location))
          throw new ValidationError(`locations[${index}]: ${JSON.stringify(location)} is listed twice`);
        seen.add(location);
      });
    },
  };
}
