import { posix } from 'node:path';
import { build, type Loader, type Plugin } from 'esbuild';

/** Where the harness directory is bound inside the sandbox. */
export const HARNESS_INSIDE = '/vigil';
/** Where the runtime's node_modules is bound: the first place Node looks for a bare name from /work. */
export const MODULES_INSIDE = '/node_modules';

const LOADERS: Record<string, Loader> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
};
const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

export function isSource(path: string): boolean {
  return SOURCE.test(path);
}

/** A source's path once transformed: CommonJS under .js, or ESM under .mjs. */
export function outputPath(path: string, format: 'cjs' | 'esm'): string {
  return path.replace(SOURCE, format === 'cjs' ? '.js' : '.mjs');
}

export class ScriptSyntaxError extends Error {}

/**
 * Imports of Playwright Test get the harness's extended `test` (same module otherwise). Relative
 * imports of sources point at their transformed names. Everything else is left for Node to resolve
 * inside the sandbox, from the runtime's node_modules.
 */
function specifiers(format: 'cjs' | 'esm'): Plugin {
  return {
    name: 'vigil-specifiers',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.path === '@playwright/test' || args.path === 'playwright/test')
          return { path: `${HARNESS_INSIDE}/test.cjs`, external: true };
        if (args.path.startsWith('.') && SOURCE.test(args.path))
          return { path: outputPath(args.path, format), external: true };
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Strips types and normalises one source to CommonJS, here in the runner before the run: import
 * and require then both work, and so do ESM-only packages (Node's require of ESM). A module with
 * top-level await cannot be CommonJS; it becomes ESM with a `require` of its own instead.
 */
export async function transformSource(
  path: string,
  contents: string,
  nodeVersion: string,
): Promise<{ format: 'cjs' | 'esm'; code: string }> {
  const extension = posix.extname(path);
  const loader = LOADERS[extension] ?? 'ts';
  const target = `node${nodeVersion.replace(/^v/, '').split('.').slice(0, 2).join('.')}`;
  const common = {
    stdin: { contents, loader, sourcefile: path, resolveDir: '/' },
    bundle: true,
    write: false,
    platform: 'node' as const,
    target,
    logLevel: 'silent' as const,
    sourcemap: 'inline' as const,
    sourcesContent: false,
  };
  try {
    const result = await build({ ...common, format: 'cjs', plugins: [specifiers('cjs')] });
    return { format: 'cjs', code: result.outputFiles![0]!.text };
  } catch (cjsError) {
    const topLevelAwait = errorsOf(cjsError).some((message) => /top-level await/i.test(message));
    if (!topLevelAwait) throw new ScriptSyntaxError(describe(path, cjsError));
    try {
      const result = await build({
        ...common,
        format: 'esm',
        plugins: [specifiers('esm')],
        banner: {
          js: "import { createRequire as __vigilCreateRequire } from 'node:module';\nconst require = __vigilCreateRequire(import.meta.url);",
        },
      });
      return { format: 'esm', code: result.outputFiles![0]!.text };
    } catch (esmError) {
      throw new ScriptSyntaxError(describe(path, esmError));
    }
  }
}

interface EsbuildMessage {
  text: string;
  location?: { file: string; line: number; column: number } | null;
}

function errorsOf(error: unknown): string[] {
  const errors = (error as { errors?: EsbuildMessage[] }).errors;
  return Array.isArray(errors) ? errors.map((message) => message.text) : [String((error as Error)?.message ?? error)];
}

function describe(path: string, error: unknown): string {
  const errors = (error as { errors?: EsbuildMessage[] }).errors;
  const first = Array.isArray(errors) ? errors[0] : undefined;
  if (!first) return `${path}: ${String((error as Error)?.message ?? error).split('\n')[0]}`;
  const where = first.location ? `${path}:${first.location.line}:${first.location.column + 1}` : path;
  return `${where}: ${first.text}`;
}
