import type { TemplateIssue } from './ast.ts';

/**
 * Bounds on user-written templates, so that one tenant's template cannot stall the process:
 * nesting depth and the number of `{{…}}` expressions are checked by a linear scan before
 * Handlebars parses anything (its parser and compiler grow badly with both), and a render stops
 * once it has run longer than its budget (nested loops can multiply without limit).
 */
export const TEMPLATE_MAX_DEPTH = 16;
export const TEMPLATE_MAX_EXPRESSIONS = 500;
export const TEMPLATE_RENDER_BUDGET_MS = 250;

function positionOf(source: string, index: number): { line: number; column: number } {
  const before = source.slice(0, index);
  return { line: before.split('\n').length, column: index - before.lastIndexOf('\n') };
}

/**
 * The first limit a template goes over, found without parsing it. It counts block openers
 * (`{{#…}}`, `{{^…}}`) and closers (`{{/…}}`) and skips comments; anything it miscounts is
 * counted on the safe side.
 */
export function limitIssue(source: string): TemplateIssue | undefined {
  let depth = 0;
  let expressions = 0;
  let index = source.indexOf('{{');
  while (index !== -1) {
    let next = index + 2;
    if (source[index - 1] !== '\\') {
      expressions += 1;
      if (expressions > TEMPLATE_MAX_EXPRESSIONS) {
        return {
          message: `template has more than ${TEMPLATE_MAX_EXPRESSIONS} {{…}} expressions (TEMPLATE_MAX_EXPRESSIONS)`,
          ...positionOf(source, index),
        };
      }
      let at = next;
      if (source[at] === '{') at += 1;
      if (source[at] === '~') at += 1;
      const kind = source[at];
      if (kind === '!') {
        const end = source.startsWith('--', at + 1) ? source.indexOf('--}}', at) : source.indexOf('}}', at);
        next = end === -1 ? source.length : end + 2;
      } else if (kind === '#' || (kind === '^' && !/^\^\s*~?\}\}/.test(source.slice(at, at + 8)))) {
        depth += 1;
        if (depth > TEMPLATE_MAX_DEPTH) {
          return {
            message: `template nests blocks more than ${TEMPLATE_MAX_DEPTH} levels deep (TEMPLATE_MAX_DEPTH)`,
            ...positionOf(source, index),
          };
        }
      } else if (kind === '/') {
        depth = Math.max(0, depth - 1);
      }
    }
    index = source.indexOf('{{', next);
  }
  return undefined;
}

/** Thrown from inside a render that ran past its budget. */
export class RenderBudgetExceeded extends Error {}

type Helper = (...args: unknown[]) => unknown;

/**
 * The helpers of one render, each checking the clock first: every block, loop iteration that
 * reaches a helper, and `{{X}}` (routed through the escaper) passes through one, so a render
 * that runs past the deadline stops within a step of it.
 */
export function withDeadline(helpers: Record<string, unknown>, deadline: number): Record<string, Helper> {
  const wrapped: Record<string, Helper> = {};
  for (const [name, helper] of Object.entries(helpers)) {
    if (typeof helper !== 'function') continue;
    wrapped[name] = function (this: unknown, ...args: unknown[]) {
      if (performance.now() > deadline) throw new RenderBudgetExceeded(name);
      return (helper as Helper).apply(this, args);
    };
  }
  return wrapped;
}

/**
 * As withDeadline, but the deadline is read when a helper is called, so the wrapped set is built
 * once per Handlebars environment instead of once per render.
 */
export function withLiveDeadline(helpers: Record<string, unknown>, deadline: () => number): Record<string, Helper> {
  const wrapped: Record<string, Helper> = {};
  for (const [name, helper] of Object.entries(helpers)) {
    if (typeof helper !== 'function') continue;
    wrapped[name] = function (this: unknown, ...args: unknown[]) {
      if (performance.now() > deadline()) throw new RenderBudgetExceeded(name);
      return (helper as Helper).apply(this, args);
    };
  }
  return wrapped;
}
