import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { UsageError } from './errors.ts';

/** The server's limits (libs/domain/check/script.ts), checked here so a mistake is named before any request. */
export const MAX_SCRIPT_BYTES = 256 * 1024;
export const MAX_FILES_BYTES = 1024 * 1024;
export const MAX_FILES = 100;
// What a test project directory holds that is not part of the check: dependencies and Playwright's output.
const SKIPPED_DIRS = new Set(['node_modules', 'test-results', 'playwright-report', 'blob-report']);

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
/** A script summed up for tables and plans: its length in lines and bytes. */
export const describeScript = (text: string) => `${lineCount(text)} lines, ${Buffer.byteLength(text)} bytes`;

export interface ScriptFile {
  path: string;
  content: string;
}

/** A test file's text; `what` names the flag or project field in the error. */
export function readScript(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${what}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SCRIPT_BYTES) throw new UsageError(`${what}: ${path} is ${bytes} bytes; a script may have 256 KiB`);
  if (text.trim() === '') throw new UsageError(`${what}: ${path} is empty`);
  return text;
}

/**
 * A PLAYWRIGHT check's test project: every file under `dir` (paths relative to it, with "/"),
 * without hidden entries, node_modules or Playwright's reports. Sorted, so the same directory
 * always gives the same list and `deploy --preview` shows no change where there is none.
 */
export function readSuite(dir: string, what: string): ScriptFile[] {
  const files: ScriptFile[] = [];
  const walk = (current: string) => {
    let names: string[];
    try {
      names = readdirSync(current).sort();
    } catch (error) {
      throw new UsageError(
        `${what}: cannot read ${current}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const path = join(current, name);
      const stat = statSync(path);
      if (stat.isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) walk(path);
      } else if (stat.isFile()) {
        files.push({ path: relative(dir, path).split(sep).join('/'), content: readFileSync(path, 'utf8') });
        if (files.length > MAX_FILES) throw new UsageError(`${what}: ${dir} holds more than ${MAX_FILES} files`);
      }
    }
  };
  walk(dir);
  if (files.length === 0) throw new UsageError(`${what}: ${dir} holds no files`);
  const bytes = files.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0);
  if (bytes > MAX_FILES_BYTES)
    throw new UsageError(`${what}: ${dir} holds ${bytes} bytes; a test project may have 1 MiB`);
  return files;
}
