import type { Check, CheckFields } from '#domain';
import type { RunnableDefinition } from './types.ts';

/**
 * What one run of a check executes, or null for a check without a definition (an external check,
 * fed by outside producers, or a heartbeat). A BROWSER check with a script runs like PLAYWRIGHT.
 */
export function runnableOf(check: Check | CheckFields): RunnableDefinition | null {
  switch (check.checkType) {
    case 'API':
    case 'URL':
    case 'TCP':
    case 'DNS':
      return check.request ? ({ checkType: check.checkType, request: check.request } as RunnableDefinition) : null;
    case 'BROWSER':
      if (check.script !== undefined)
        return {
          checkType: 'BROWSER',
          script: check.script,
          runtimeId: check.runtimeId ?? null,
          ...(check.browser ? { artifacts: check.browser.artifacts } : {}),
        };
      return check.browser ? { checkType: 'BROWSER', browser: check.browser } : null;
    case 'MULTI_STEP':
      return check.script === undefined
        ? null
        : {
            checkType: 'MULTI_STEP',
            script: check.script,
            runtimeId: check.runtimeId ?? null,
            ...(check.artifacts ? { artifacts: check.artifacts } : {}),
          };
    case 'PLAYWRIGHT': {
      const common = { runtimeId: check.runtimeId ?? null, ...(check.artifacts ? { artifacts: check.artifacts } : {}) };
      if (check.files !== undefined) return { checkType: 'PLAYWRIGHT', files: check.files, ...common };
      return check.script === undefined ? null : { checkType: 'PLAYWRIGHT', script: check.script, ...common };
    }
    default:
      return null;
  }
}
