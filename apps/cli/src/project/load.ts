import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../errors.ts';
import { readScript, readSuite } from '../script-files.ts';
import { projectFileSchema, type DeclaredCheck, type ProjectFile } from './schema.ts';

/** Looked for in the current directory, in this order, when --config is not given. */
export const PROJECT_FILES = [
  'vigil.config.yaml',
  'vigil.config.yml',
  'vigil.config.json',
  'vigil.config.mjs',
  'vigil.config.js',
];

export interface LoadedProject {
  path: string;
  project: ProjectFile;
}

export function findProjectFile(cwd: string): string {
  for (const name of PROJECT_FILES) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
  }
  // Node 20 cannot import TypeScript without a compiler, and the CLI ships none at run time.
  if (existsSync(resolve(cwd, 'vigil.config.ts')))
    throw new UsageError(
      'vigil.config.ts cannot be loaded without a TypeScript compiler: use vigil.config.mjs (same object, default export) or vigil.config.yaml',
    );
  throw new UsageError(`No project file in ${cwd}: create one of ${PROJECT_FILES.join(', ')}, or pass --config <file>`);
}

async function readRaw(path: string): Promise<unknown> {
  const extension = extname(path).toLowerCase();
  if (extension === '.mjs' || extension === '.js') {
    const module = (await import(pathToFileURL(path).href)) as { default?: unknown };
    const value = module.default;
    return typeof value === 'function' ? await (value as () => unknown)() : value;
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    if (extension === '.json') return JSON.parse(text);
    // Loaded here, not at start-up: every other command starts without it.
    const { parse } = await import('yaml');
    return parse(text);
  } catch (error) {
    throw new UsageError(`${basename(path)} does not parse: ${(error as Error).message}`);
  }
}

/** Reads and checks the project file; a mistake names the file and the field. */
export async function loadProject(configPath: string | undefined, cwd = process.cwd()): Promise<LoadedProject> {
  const path = configPath ? resolve(cwd, configPath) : findProjectFile(cwd);
  if (configPath && !existsSync(path)) throw new UsageError(`--config ${configPath}: no such file`);
  const parsed = projectFileSchema.safeParse(await readRaw(path));
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 10).map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      return `  ${where}: ${issue.message}`;
    });
    throw new UsageError(`${basename(path)} is not a valid project file:\n${lines.join('\n')}`);
  }
  const base = dirname(path);
  const checks = parsed.data.checks.map((check, index) =>
    withCode(check, base, `${basename(path)}: checks.${index}.code`),
  );
  return { path, project: { ...parsed.data, checks } };
}

/** A check's `code` read from disk (paths relative to the project file) into the API's script or files. */
function withCode(check: DeclaredCheck, base: string, where: string): DeclaredCheck {
  const { code, ...rest } = check;
  if (code === undefined) return check;
  if (code.content !== undefined) return { ...rest, script: code.content };
  if (code.entrypoint !== undefined)
    return { ...rest, script: readScript(resolve(base, code.entrypoint), `${where}.entrypoint`) };
  return { ...rest, files: readSuite(resolve(base, code.directory!), `${where}.directory`) };
}
