import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { ValidationError } from '#core';
import type { MaintenanceWindowInput } from '#domain';
import { strictInput } from '#http';
import { markers } from '#project-markers';
import type { Access } from '../access.ts';
import { runDry } from '../request-context.ts';
import type { MaintenanceWindowService } from '../services/maintenance-windows.ts';
import { numericId } from './ids.ts';
import { toVigil, windowBody } from './maintenance-windows.ts';

/**
 * A project's maintenance windows. A window's tags choose its checks, so, as with `vigil deploy`,
 * the marker ends its name: `Nightly [vigil:website/nightly-window]`.
 */
const EVERY = { limit: 100_000, page: 1 };
/** Read as strictly as the dialect's own routes: an unknown field is named, not dropped. */
const strictWindowBody = strictInput(windowBody);

export interface WindowPlan {
  windows: Array<{ logicalId: string; input: MaintenanceWindowInput; id?: string; unchanged: boolean }>;
  deleteWindows: Array<{ id: string; logicalId: string }>;
}

type Resource = { logicalId: string; type: string; payload: Record<string, unknown> };

/** Matches by name marker; a window is unchanged when a dry update answers it as it is. */
export async function planWindows(
  windows: MaintenanceWindowService,
  access: Access,
  project: string,
  resources: Resource[],
  refused: string[],
): Promise<WindowPlan> {
  const owned = new Map<string, { id: string }>();
  for (const window of (await windows.list(access, EVERY)).items) {
    const marker = markers.parseMarkedName(window.name);
    if (marker?.project === project) owned.set(marker.logicalId, window);
  }
  const plan: WindowPlan = { windows: [], deleteWindows: [] };
  for (const resource of resources) {
    try {
      const parsed = strictWindowBody.safeParse(resource.payload);
      if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
      const input = toVigil({
        ...parsed.data,
        name: markers.markedName(parsed.data.name, project, resource.logicalId),
      });
      const current = owned.get(resource.logicalId);
      let unchanged = false;
      if (current) {
        const { updatedAt: _a, ...now } = (await windows.get(access, current.id)) as Record<string, unknown>;
        const { updatedAt: _b, ...next } = (await runDry(() => windows.update(access, current.id, input))) as Record<
          string,
          unknown
        >;
        unchanged = isDeepStrictEqual(now, next);
      } else await runDry(() => windows.create(access, input));
      plan.windows.push({ logicalId: resource.logicalId, input, id: current?.id, unchanged });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      refused.push(`${resource.type} "${resource.logicalId}": ${error.message}`);
    }
  }
  const declared = new Set(resources.map((r) => r.logicalId));
  for (const [logicalId, window] of owned)
    if (!declared.has(logicalId)) plan.deleteWindows.push({ id: window.id, logicalId });
  return plan;
}

export async function applyWindows(windows: MaintenanceWindowService, access: Access, plan: WindowPlan, dry: boolean) {
  for (const window of plan.windows) {
    if (window.unchanged) continue;
    if (window.id) await windows.update(access, window.id, window.input);
    else await windows.create(access, window.input);
  }
  for (const window of plan.deleteWindows)
    if (dry) await windows.get(access, window.id);
    else await windows.delete(access, window.id);
}

export function windowDiff(plan: WindowPlan) {
  return [
    ...plan.windows.map((w) => ({
      type: 'maintenance-window' as const,
      logicalId: w.logicalId,
      physicalId: w.id ? numericId(w.id) : null,
      action: w.id ? ('UPDATE' as const) : ('CREATE' as const),
    })),
    ...plan.deleteWindows.map((w) => ({
      type: 'maintenance-window' as const,
      logicalId: w.logicalId,
      physicalId: numericId(w.id),
      action: 'DELETE' as const,
    })),
  ];
}
