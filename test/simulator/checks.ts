import { checkTypes, responseTimeDefaults, type CheckType } from '#domain';
import type { SimCheck } from '../../apps/simulator/src/generate.ts';
import { createRng } from '../../apps/simulator/src/random.ts';

export const locations = ['eu-west-1', 'us-east-1', 'ap-southeast-1'];

/**
 * Checks as the API would return them: every type, with one to three locations, default
 * thresholds, and for each type one check with tight thresholds so slow and timed-out runs are
 * common there too.
 */
export function sampleChecks(seed = 'checks', perType = 4): SimCheck[] {
  const rng = createRng(seed);
  const accountId = rng.uuid();
  return checkTypes.flatMap((checkType) =>
    Array.from({ length: perType }, (_, index) =>
      sampleCheck(checkType, index, { id: rng.uuid(), accountId, tight: index === perType - 1 }),
    ),
  );
}

export function sampleCheck(
  checkType: CheckType,
  index: number,
  options: { id: string; accountId: string; tight?: boolean },
): SimCheck {
  const defaults = responseTimeDefaults[checkType];
  return {
    id: options.id,
    accountId: options.accountId,
    name: `Orders ${checkType} #${index}`,
    checkType,
    frequency: [1, 5, 10, 60][index % 4]!,
    locations: locations.slice(0, 1 + (index % 3)),
    // Tight: degraded equals max, the edge the schema allows.
    degradedResponseTime: options.tight ? 100 : defaults.degraded,
    maxResponseTime: options.tight ? 100 : defaults.max,
    sslCheckDomain: index % 2 === 0 ? 'orders.example.com' : null,
  };
}
