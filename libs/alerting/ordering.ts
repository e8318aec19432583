import type { CheckResult } from '#domain';
import { MAX_TIED_RESULT_IDS, type CheckAlertState } from './state.ts';

type LastApplied = CheckAlertState['last'];

/**
 * Whether a result moves the state machine. Results are applied in startedAt order, once each:
 * - a result that started before the last applied one is late and is dropped for alerting
 *   (it still counts in analytics, which the ingestor feeds independently). Re-ordering would
 *   mean rewriting alerts already sent; dropping keeps "never a duplicate alert" simple;
 * - a result already applied (a bus redelivery, a replay after a crash) is dropped;
 * - results that started in the same millisecond are all applied, in arrival order.
 */
export function isFresh(last: LastApplied, result: Pick<CheckResult, 'id' | 'startedAt'>): boolean {
  if (last === null) return true;
  const at = Date.parse(result.startedAt);
  const lastAt = Date.parse(last.startedAt);
  if (at !== lastAt) return at > lastAt;
  return !last.ids.includes(result.id);
}

export function remember(last: LastApplied, result: Pick<CheckResult, 'id' | 'startedAt'>): NonNullable<LastApplied> {
  if (last !== null && Date.parse(last.startedAt) === Date.parse(result.startedAt)) {
    return { startedAt: last.startedAt, ids: [...last.ids, result.id].slice(-MAX_TIED_RESULT_IDS) };
  }
  return { startedAt: result.startedAt, ids: [result.id] };
}
