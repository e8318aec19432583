import { z } from 'zod';
import { utf8Bytes } from '../validation.ts';

/**
 * Script checks (Checkly's shapes): a MULTI_STEP or PLAYWRIGHT check carries the test file's text
 * as `script`; a PLAYWRIGHT check may carry a small test project as `files` instead; a BROWSER
 * check may carry a `script` instead of `browser: {url…}` and then runs like PLAYWRIGHT.
 */

export const MAX_SCRIPT_BYTES = 256 * 1024;
export const MAX_SCRIPT_FILES_BYTES = 1024 * 1024;
export const MAX_SCRIPT_FILES = 100;
const MAX_PATH_LENGTH = 256;
/** A script's run budget: maxResponseTime is at most this, and is this when left out (as Checkly has it). */
export const SCRIPT_RESPONSE_TIME_CAP_MS = 240_000;
export const SCRIPT_DEGRADED_DEFAULT_MS = 30_000;

export const scriptSchema = z
  .string()
  .min(1)
  .refine((text) => utf8Bytes(text) <= MAX_SCRIPT_BYTES, `must be at most ${MAX_SCRIPT_BYTES} bytes (256 KiB)`)
  .describe("The test file's text: ESM, CommonJS or TypeScript using @playwright/test");

const segment = /^[A-Za-z0-9_@+-][A-Za-z0-9_.@+-]*$/;
const sourceFile = /\.(?:[cm]?[jt]s|tsx|jsx)$/;
const configFile = /^playwright\.config\.(?:ts|js|mjs|cjs)$/;

/** A relative path of plain segments: no absolute paths, no `..`, no hidden or odd characters. */
export const scriptFilePathSchema = z
  .string()
  .min(1)
  .max(MAX_PATH_LENGTH)
  .refine(
    (path) => path.split('/').every((part) => segment.test(part) && part !== '.' && part !== '..'),
    'must be a relative path of segments made of letters, digits and _ . @ + - (no "..", no leading "/" or ".")',
  )
  .refine(
    (path) => !/^playwright\.config\./.test(path) || configFile.test(path),
    'playwright.config must be .ts, .js, .mjs or .cjs',
  );

export const scriptFileSchema = z.object({ path: scriptFilePathSchema, content: z.string() }).strict();
export type ScriptFile = z.output<typeof scriptFileSchema>;

export const scriptFilesSchema = z
  .array(scriptFileSchema)
  .min(1)
  .max(MAX_SCRIPT_FILES)
  .superRefine((files, ctx) => {
    const seen = new Set<string>();
    let bytes = 0;
    files.forEach((file, index) => {
      if (seen.has(file.path))
        ctx.addIssue({ code: 'custom', path: [index, 'path'], message: `duplicate path ${file.path}` });
      seen.add(file.path);
      bytes += utf8Bytes(file.content);
    });
    if (bytes > MAX_SCRIPT_FILES_BYTES)
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_SCRIPT_FILES_BYTES} bytes (1 MiB) in all` });
    if (!files.some((file) => sourceFile.test(file.path) && !configFile.test(file.path)))
      ctx.addIssue({ code: 'custom', message: 'must hold at least one test file (.ts, .js, .mjs, .cjs, …)' });
  })
  .describe('A small Playwright test project, run as one check');

/** The check types whose runs are scripts, and whether a given check definition is one. */
export function isScriptCheck(check: { checkType: string; script?: unknown; files?: unknown }): boolean {
  switch (check.checkType) {
    case 'MULTI_STEP':
      return check.script !== undefined;
    case 'PLAYWRIGHT':
    case 'BROWSER':
      return check.script !== undefined || check.files !== undefined;
    default:
      return false;
  }
}

/** Script definitions carry one of script or files (BROWSER: script or browser), never both. */
export function refineScriptShape(
  input: { checkType: string; script?: unknown; files?: unknown; browser?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (input.checkType === 'PLAYWRIGHT' && input.script !== undefined && input.files !== undefined)
    ctx.addIssue({ code: 'custom', path: ['files'], message: 'give either script or files, not both' });
  if (input.checkType === 'BROWSER' && input.script !== undefined && input.browser !== undefined)
    ctx.addIssue({ code: 'custom', path: ['script'], message: 'give either script or browser, not both' });
}
