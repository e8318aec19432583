import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * npm packages only the tests and benchmarks use, kept out of a user's `npm install` (chdb alone is
 * 543 MB, and @platformatic/kafka's engines range made npm warn on Node 20). They are installed on
 * first use, at these pinned versions, into .services/tools, as schemathesis is from PyPI.
 */
export const TOOL_VERSIONS = {
  chdb: '3.4.0',
  autocannon: '9.0.0',
  '@platformatic/kafka': '1.35.0',
} as const;
export type ToolName = keyof typeof TOOL_VERSIONS;

export const toolsDir = resolve(import.meta.dirname, '../.services/tools');

function installedVersion(name: ToolName): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(toolsDir, 'node_modules', name, 'package.json'), 'utf8')) as {
      version?: string;
    };
    return manifest.version;
  } catch {
    return undefined;
  }
}

/** Installs the named tools that are missing or at another version; a no-op (file reads only) when all are there. */
export function ensureTools(names: readonly ToolName[] = Object.keys(TOOL_VERSIONS) as ToolName[]): void {
  const missing = names.filter((name) => installedVersion(name) !== TOOL_VERSIONS[name]);
  if (missing.length === 0) return;
  mkdirSync(toolsDir, { recursive: true });
  const manifest = join(toolsDir, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, '{ "private": true, "description": "test and bench tools" }\n');
  // Saved into the tools' own package.json, so installing one later does not prune the others.
  // No install scripts: chdb's only fetches what its platform package already brings.
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      toolsDir,
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...missing.map((name) => `${name}@${TOOL_VERSIONS[name]}`),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 },
  );
  for (const name of missing)
    if (installedVersion(name) !== TOOL_VERSIONS[name])
      throw new Error(`installing ${name}@${TOOL_VERSIONS[name]} into ${toolsDir} failed`);
}

const requireFromTools = () => createRequire(join(toolsDir, 'package.json'));

/** A CommonJS tool (or one with a require export), installed first if needed. */
export function requireTool<T>(name: ToolName, subpath = ''): T {
  ensureTools([name]);
  return requireFromTools()(`${name}${subpath}`) as T;
}

/** An ES module tool, installed first if needed. */
export async function importTool<T>(name: ToolName): Promise<T> {
  ensureTools([name]);
  return (await import(pathToFileURL(requireFromTools().resolve(name)).href)) as T;
}
