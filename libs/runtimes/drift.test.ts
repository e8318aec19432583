import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue, RuntimeCatalogue } from './catalogue.ts';
import { NODE_PACKAGE, runtimeManifest } from './manifest.ts';
import { lockfileDir } from './paths.ts';

// The catalogue and the committed lockfiles cannot drift: what GET /v1/runtimes promises is what
// `npm ci` installs. Regenerate with `tsx scripts/runtimes.ts lock <name>` after editing runtimes.json.
const catalogue = new RuntimeCatalogue(loadCatalogue(), () => new Date());
const usable = catalogue.usable();
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

interface LockedPackage {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

describe('runtime lockfiles match the catalogue', () => {
  it('there is at least one usable runtime today, and every lockfile directory is a catalogued runtime', () => {
    expect(usable.length).toBeGreaterThan(0);
    const dirs = readdirSync(join(lockfileDir(usable[0]!.name), '..'));
    for (const dir of dirs) expect(catalogue.get(dir), `runtimes/${dir} is not in the catalogue`).toBeDefined();
  });

  describe.each(usable.map((runtime) => [runtime.name, runtime] as const))('%s', (name, runtime) => {
    const dir = lockfileDir(name);
    const expected = runtimeManifest(runtime);

    it('has a committed package.json that is exactly the catalogue entry', () => {
      expect(existsSync(join(dir, 'package.json')), `runtimes/${name}/package.json is missing`).toBe(true);
      expect(readJson(join(dir, 'package.json'))).toEqual(expected);
      expect(expected.dependencies[NODE_PACKAGE]).toBe(runtime.nodeJsVersion.slice(1));
    });

    it('has a lockfile whose top level is exactly the catalogue: the Node binary and each dependency, at its version', () => {
      const lock = readJson(join(dir, 'package-lock.json')) as {
        lockfileVersion: number;
        packages: Record<string, LockedPackage>;
      };
      expect(lock.lockfileVersion).toBe(3);
      const root = lock.packages[''];
      expect(root?.dependencies).toEqual(expected.dependencies);
      expect(root?.devDependencies ?? {}).toEqual({});
      expect(root?.optionalDependencies ?? {}).toEqual({});
      expect(root?.peerDependencies ?? {}).toEqual({});
      // Resolved versions: what npm ci installs at node_modules/<name>.
      expect(lock.packages[`node_modules/${NODE_PACKAGE}`]?.version).toBe(runtime.nodeJsVersion.slice(1));
      for (const [dependency, version] of Object.entries(runtime.dependencies))
        expect(lock.packages[`node_modules/${dependency}`]?.version, dependency).toBe(version);
      // No extra top-level dependency: every other package is there because a dependency needs it.
      const topLevel = Object.keys(lock.packages)
        .filter((path) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path))
        .map((path) => path.slice('node_modules/'.length));
      const needed = new Set(
        Object.entries(lock.packages)
          .filter(([path]) => path !== '')
          .flatMap(([, entry]) =>
            Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies }),
          ),
      );
      for (const pkg of topLevel)
        expect(pkg in expected.dependencies || needed.has(pkg), `${pkg} is in the lockfile but nothing needs it`).toBe(
          true,
        );
    });

    it('downloads only from the npm registry, each package pinned by a sha512 integrity', () => {
      const lock = readJson(join(dir, 'package-lock.json')) as { packages: Record<string, LockedPackage> };
      for (const [path, entry] of Object.entries(lock.packages)) {
        if (path === '') continue;
        expect(entry.link, `${path} is a link`).toBeUndefined();
        expect(entry.integrity, `${path} has no integrity`).toMatch(/^sha512-/);
        // Lockfiles here omit `resolved` (npm's omit-lockfile-registry-resolved): npm then fetches from
        // the configured registry. Any recorded URL must be that registry's tarball.
        if (entry.resolved !== undefined)
          expect(entry.resolved, path).toMatch(/^https:\/\/registry\.npmjs\.org\/(@[^/]+\/)?[^/]+\/-\/[^/]+\.tgz$/);
      }
    });
  });
});
