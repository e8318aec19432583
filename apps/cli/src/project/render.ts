import { show } from './diff.ts';
import type { Step } from './plan.ts';
import { filesChangeLines, scriptChangeLines } from './script-diff.ts';

const SIGNS = { create: '+', update: '~', delete: '-' } as const;

export function summary(steps: readonly Step[]): Record<'create' | 'update' | 'delete', number> {
  const count = (action: Step['action']) => steps.filter((step) => step.action === action).length;
  return { create: count('create'), update: count('update'), delete: count('delete') };
}

export function summaryLine(steps: readonly Step[]): string {
  const { create, update, delete: remove } = summary(steps);
  return `${create} to create, ${update} to update, ${remove} to delete`;
}

/** The plan as people read it: one line per resource, then one line per changed field (old → new). */
export function renderPlan(steps: readonly Step[]): string[] {
  const lines: string[] = [];
  for (const step of steps) {
    const label = step.kind === 'subscription' ? step.logicalId : `${step.logicalId} (${step.name})`;
    lines.push(`${SIGNS[step.action]} ${step.action} ${step.kind} ${label}`);
    for (const change of step.changes) {
      if (change.path === 'script') {
        lines.push(...scriptChangeLines(change.old, change.new, '    '));
        continue;
      }
      if (change.path === 'files') {
        lines.push(...filesChangeLines(change.old, change.new, '    '));
        continue;
      }
      lines.push(
        step.action === 'create'
          ? `    ${change.path}: ${show(change.new)}`
          : `    ${change.path}: ${show(change.old)} → ${show(change.new)}`,
      );
    }
  }
  return lines;
}

/** The plan for --json: everything but the declarations the steps carry for applying. */
export function planJson(steps: readonly Step[]) {
  return steps.map(({ declared: _declared, subscription: _subscription, ...step }) => step);
}
