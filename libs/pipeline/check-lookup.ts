import type { CheckView, ReadModels } from '#readmodels';

export interface CheckIdentity {
  accountId: string;
  checkType: string;
}

export interface CheckLookup {
  /** The known, active checks among ids; unknown ids are absent from the map. */
  resolve(ids: string[]): Promise<Map<string, CheckIdentity>>;
}

/**
 * Check look-ups for the result pipeline. A check's account and type never change, so known
 * checks are cached for a short time; unknown ids are asked again each time, so a check created
 * a moment ago is accepted at once.
 */
export function createCheckLookup(
  readModels: ReadModels,
  options: { ttlMs?: number; maxEntries?: number } = {},
): CheckLookup {
  const ttlMs = options.ttlMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 100_000;
  const cache = new Map<string, { identity: CheckIdentity; until: number }>();
  return {
    async resolve(ids) {
      const now = Date.now();
      const found = new Map<string, CheckIdentity>();
      const missing: string[] = [];
      for (const id of new Set(ids)) {
        const hit = cache.get(id);
        if (hit && hit.until > now) found.set(id, hit.identity);
        else missing.push(id);
      }
      if (missing.length > 0) {
        const views = await readModels.checksByIds(missing);
        for (const view of views) {
          const identity = identityOf(view);
          found.set(view.check.id, identity);
          if (cache.size >= maxEntries) cache.clear();
          cache.set(view.check.id, { identity, until: now + ttlMs });
        }
      }
      return found;
    },
  };
}

function identityOf(view: CheckView): CheckIdentity {
  return { accountId: view.accountId, checkType: view.check.checkType };
}
