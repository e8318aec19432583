import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PayloadTooLargeError, ValidationError } from '#core';
import { MAX_SCRIPT_FILES, MAX_SCRIPT_FILES_BYTES, scriptFilesSchema, type ScriptFile } from '#domain';
import type { Runtime } from '#runtimes';
import type { StateStore } from '#statestore';
import type { Access } from '../access.ts';

/**
 * A Playwright check suite's code bundle. `checkly deploy` first uploads the project as a tar.gz
 * (`POST /next/checkly-storage/upload-code-bundle`), then names the answered key as the check's
 * `codeBundlePath`. Vigil keeps a PLAYWRIGHT check's project as its `files` (text, at most 100
 * files and 1 MiB), so the upload is unpacked and held to those limits at once, and kept in the
 * state store for an hour until a deploy takes it into the check. The key is a hash of the
 * unpacked files, so a check can give its codeBundlePath back from its files alone (the Go SDK
 * and Terraform read it back) and a write naming its own files' key needs no upload.
 */
const BUNDLE_TTL_MS = 60 * 60_000;
/** Compressed; the unpacked files are held to Vigil's own limits. */
const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;
/** The unpacked archive: the files' limit plus the tar headers and padding of 100 files. */
const MAX_TAR_BYTES = MAX_SCRIPT_FILES_BYTES + (MAX_SCRIPT_FILES + 10) * 1536;

const storeKey = (accountId: string, key: string) => `checkly:code-bundle:${accountId}:${key}`;

/** The code bundle key of a set of files: the same files, in any order, give the same key. */
export function codeBundleKey(files: readonly ScriptFile[]): string {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash('sha256');
  for (const file of sorted) hash.update(JSON.stringify([file.path, file.content]));
  return `vigil-bundle-${hash.digest('hex')}`;
}

/** Reads a ustar archive's regular files (with pax and GNU long names); any other entry is refused. */
export function readTar(tar: Buffer): ScriptFile[] {
  const files: ScriptFile[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let longName: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const text = (from: number, length: number) =>
      header
        .subarray(from, from + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = parseInt(text(124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] || 48);
    const body = tar.subarray(at + 512, at + 512 + size);
    if (Number.isNaN(size) || body.length < size) throw new ValidationError('codeBundle: not a complete tar archive');
    at += 512 + Math.ceil(size / 512) * 512;
    const prefix = text(345, 155);
    const name = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100));
    longName = undefined;
    if (type === 'x') {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
    } else if (type === 'L') {
      longName = body.toString('utf8').replace(/\0.*$/s, '');
    } else if (type === '0' || type === '\0' || type === '7') {
      let content: string;
      try {
        content = decoder.decode(body);
      } catch {
        throw new ValidationError(
          `codeBundle: ${name} is not UTF-8 text; Vigil keeps a Playwright project as text files`,
        );
      }
      files.push({ path: name.replace(/^\.\//, ''), content });
    } else if (type !== '5' && type !== 'g') {
      throw new ValidationError(`codeBundle: ${name} is not a regular file (tar type ${type}); Vigil keeps files only`);
    }
  }
  return files;
}

/** Unpacks an upload and holds it to a PLAYWRIGHT check's limits; a 400 names what does not fit. */
export function unpackBundle(upload: Buffer): ScriptFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(upload, { maxOutputLength: MAX_TAR_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new PayloadTooLargeError(
        `codeBundle: unpacked it is over ${MAX_TAR_BYTES} bytes; a Vigil Playwright check holds at most ${MAX_SCRIPT_FILES_BYTES} bytes of files`,
      );
    throw new ValidationError('codeBundle: not a gzip tar archive');
  }
  const files = readTar(tar);
  const parsed = scriptFilesSchema.safeParse(files);
  if (!parsed.success) throw new ValidationError(`codeBundle: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function codeBundleRoutes(app: FastifyInstance, store: StateStore): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/octet-stream',
      { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post('/next/checkly-storage/upload-code-bundle', {
      bodyLimit: MAX_UPLOAD_BYTES,
      config: { access: { minRole: 'READ_WRITE' } },
      handler: async (request) => {
        if (!Buffer.isBuffer(request.body))
          throw new ValidationError('body: send the tar.gz as application/octet-stream');
        const files = unpackBundle(request.body);
        const key = codeBundleKey(files);
        await store.set(storeKey(request.access!.accountId, key), JSON.stringify(files), { ttlMs: BUNDLE_TTL_MS });
        return { key };
      },
    });
  });
}

/** The fields a PlaywrightCheck adds to a check: what Vigil honours of them, and its files. */
const suiteFields = z.object({
  codeBundlePath: z.string().max(256),
  browsers: z.array(z.string().max(32)).max(10).nullish(),
  cacheHash: z.unknown().optional(),
  playwrightVersion: z.string().max(64).nullish(),
  testCommand: z.string().max(4096).nullish(),
  installCommand: z.string().max(4096).nullish(),
  workingDir: z.string().max(1024).nullish(),
  engine: z.string().max(64).nullish(),
  engineVersion: z.string().max(64).nullish(),
});
const SUITE_KEYS = Object.keys(suiteFields.shape);
/**
 * The project's Playwright pin against the runtime the check runs in (its own, its group's, its
 * account's): Vigil runs the runtime's Playwright and installs none, so they must agree.
 */
export function assertPlaywrightVersion(runtime: Runtime, pinned: string | undefined): void {
  const has = runtime.dependencies['@playwright/test'];
  if (pinned && has !== pinned)
    throw new ValidationError(
      `playwrightVersion: the project pins @playwright/test ${pinned}, but the check runs on runtime ${runtime.name}, which has ${has ?? 'none'}; pin ${has} or set a runtimeId whose Playwright is ${pinned}`,
    );
}

/** The command Vigil runs is Playwright's own on the project's root config: the CLI's default says just that. */
const DEFAULT_COMMAND = /^npx playwright test --config (playwright\.config\.(?:ts|js|mjs|cjs|mts|cts))$/;

/**
 * Splits a PLAYWRIGHT check's payload into the check fields and its project files, refusing what
 * Vigil cannot honour: another test or install command (--project, --grep), a browser other than
 * Chromium, a project outside the repository root, another engine.
 */
export async function suiteFiles(
  store: StateStore,
  access: Access,
  payload: Record<string, unknown>,
  current?: readonly ScriptFile[],
): Promise<{ check: Record<string, unknown>; files: ScriptFile[]; playwrightVersion?: string }> {
  const check = Object.fromEntries(Object.entries(payload).filter(([key]) => !SUITE_KEYS.includes(key)));
  const parsed = suiteFields.safeParse(payload);
  if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
  const suite = parsed.data;
  const why: string[] = [];
  if (suite.testCommand && !DEFAULT_COMMAND.test(suite.testCommand))
    why.push(
      `testCommand: Vigil runs "npx playwright test --config playwright.config.*" on the whole project; pwProjects, pwTags and other commands are not supported (got "${suite.testCommand}")`,
    );
  if (suite.installCommand) why.push("installCommand: Vigil runs the check on its runtime's packages, installing none");
  const others = (suite.browsers ?? []).filter((browser) => browser !== 'chromium');
  if (others.length > 0) why.push(`browsers: Vigil runs Chromium only, not ${others.join(', ')}`);
  if (suite.workingDir && suite.workingDir !== '.')
    why.push('workingDir: the Playwright project must be at the root of the Checkly project');
  if (suite.engine) why.push(`engine: Vigil runs Playwright only, not ${suite.engine}`);
  // The check's own files under their own key: an unchanged suite needs no upload, however old.
  const same = current && codeBundleKey(current) === suite.codeBundlePath;
  const raw = same ? JSON.stringify(current) : await store.get(storeKey(access.accountId, suite.codeBundlePath));
  if (!raw) why.push('codeBundlePath: no uploaded code bundle of this account has that key (they are kept an hour)');
  if (why.length > 0) throw new ValidationError(why.join('; '));
  return { check, files: JSON.parse(raw!) as ScriptFile[], playwrightVersion: suite.playwrightVersion ?? undefined };
}

/**
 * The suite fields a PLAYWRIGHT check reads back as: its files' key, Chromium (Vigil's one
 * browser), and Playwright's command on the project's root config, the only one Vigil runs.
 */
export function suiteJson(files: readonly ScriptFile[] | undefined) {
  if (!files) return {};
  const config = files.find((file) => /^playwright\.config\.(?:ts|js|mjs|cjs|mts|cts)$/.test(file.path));
  return {
    codeBundlePath: codeBundleKey(files),
    browsers: ['chromium'],
    testCommand: config ? `npx playwright test --config ${config.path}` : null,
  };
}
