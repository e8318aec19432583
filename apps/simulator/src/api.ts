import type { Check } from '#domain';
import type { SimCheck } from './generate.ts';
import { requestJson } from './http.ts';
import type { PlannedCheck } from './plan.ts';

/** The account side of the API: who we are and registering the checks. */

export interface ApiTarget {
  url: string;
  apiKey: string;
  /** Sent as X-Service-Account when given; needed for a user key in several accounts. */
  accountId?: string;
}

function headers(target: ApiTarget): Record<string, string> {
  const result: Record<string, string> = { authorization: `Bearer ${target.apiKey}` };
  if (target.accountId) result['x-service-account'] = target.accountId;
  return result;
}

/** The account the key acts in: results must carry it, and the check answers do not. */
export async function resolveAccountId(target: ApiTarget, signal?: AbortSignal): Promise<string> {
  if (target.accountId) return target.accountId;
  const response = await requestJson<{ id: string }>('GET', `${target.url}/v1/accounts/me`, {
    headers: headers(target),
    signal,
  });
  return response.body.id;
}

/**
 * Registers the planned checks, a few at a time (the account's rate limit counts these too), and
 * returns them as the API stored them, with the thresholds it filled in.
 */
export async function registerChecks(
  target: ApiTarget,
  accountId: string,
  planned: readonly PlannedCheck[],
  options: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<SimCheck[]> {
  const registered: SimCheck[] = new Array(planned.length);
  let next = 0;
  const worker = async () => {
    while (next < planned.length && !options.signal?.aborted) {
      const index = next++;
      const body = planned[index]!;
      const response = await requestJson<Check>('POST', `${target.url}/v1/checks`, {
        headers: headers({ ...target, accountId }),
        body,
        signal: options.signal,
      });
      registered[index] = toSimCheck(response.body, accountId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, planned.length) }, worker));
  if (options.signal?.aborted) throw new Error('interrupted while registering checks');
  return registered;
}

function toSimCheck(check: Check, accountId: string): SimCheck {
  return {
    id: check.id,
    accountId,
    name: check.name,
    checkType: check.checkType,
    frequency: check.frequency,
    locations: check.locations,
    degradedResponseTime: check.degradedResponseTime,
    maxResponseTime: check.maxResponseTime,
    sslCheckDomain: check.sslCheckDomain,
  };
}
