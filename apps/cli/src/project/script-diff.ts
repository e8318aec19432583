/**
 * How the plan shows a script or a test project: a one-line JSON string of a whole test file says
 * nothing, so a changed script shows the lines that differ (the changed region between the common
 * first and last lines, as `-`/`+` lines), and a test project shows which files change.
 */
import { describeScript } from '../script-files.ts';

const SHOWN = 12;

function capped(sign: '-' | '+', lines: string[]): string[] {
  const shown = lines.slice(0, SHOWN).map((line) => `${sign} ${line}`);
  if (lines.length > SHOWN) shown.push(`${sign} … ${lines.length - SHOWN} more lines`);
  return shown;
}

/** The changed region of two texts: lines before it and after it are the same in both. */
export function changedLines(before: string, after: string): { at: number; removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return { at: start + 1, removed: a.slice(start, endA), added: b.slice(start, endB) };
}

/** Plan lines for `script` (indent is the field's own indentation). */
export function scriptChangeLines(old: unknown, desired: unknown, indent: string): string[] {
  if (typeof desired !== 'string') return [`${indent}script: (removed)`];
  if (typeof old !== 'string') return [`${indent}script: ${describeScript(desired)}`];
  const { at, removed, added } = changedLines(old, desired);
  return [
    `${indent}script: changed at line ${at} (${describeScript(old)} → ${describeScript(desired)})`,
    ...capped('-', removed).map((line) => `${indent}  ${line}`),
    ...capped('+', added).map((line) => `${indent}  ${line}`),
  ];
}

type File = { path: string; content: string };
const asFiles = (value: unknown): File[] =>
  Array.isArray(value)
    ? value.filter((f): f is File => typeof f?.path === 'string' && typeof f?.content === 'string')
    : [];

/** Plan lines for `files`: one per added, changed or removed file of the test project. */
export function filesChangeLines(old: unknown, desired: unknown, indent: string): string[] {
  const before = new Map(asFiles(old).map((f) => [f.path, f.content]));
  const after = asFiles(desired);
  const lines = [`${indent}files: ${after.length} files${before.size > 0 ? ` (was ${before.size})` : ''}`];
  for (const file of after) {
    const current = before.get(file.path);
    if (current === undefined) lines.push(`${indent}  + ${file.path} (${describeScript(file.content)})`);
    else if (current !== file.content) {
      const { at } = changedLines(current, file.content);
      lines.push(`${indent}  ~ ${file.path} (changed at line ${at})`);
    }
  }
  const kept = new Set(after.map((f) => f.path));
  for (const path of before.keys()) if (!kept.has(path)) lines.push(`${indent}  - ${path}`);
  return lines;
}
