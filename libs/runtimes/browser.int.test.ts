import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { chromiumMajor, probeChromium } from './browser.ts';
import { loadCatalogue, RuntimeCatalogue } from './catalogue.ts';
import { findInstalled } from './install.ts';

const run = promisify(execFile);
const usable = new RuntimeCatalogue(loadCatalogue(), () => new Date()).usable();

function provided() {
  const services = inject('services');
  if ('error' in services) throw new Error(services.error);
  const runtimes = inject('runtimes');
  if ('error' in runtimes) throw new Error(runtimes.error);
  return { chromiumPath: services.CHROMIUM_PATH, root: runtimes.root };
}

async function installed(name: string) {
  const { root } = provided();
  const found = await findInstalled(root, name);
  if (!found) throw new Error(`runtime ${name} is not installed under ${root}: the test setup installs it`);
  return found;
}

// The catalogue's browserSupport is a claim about this deployment's Chromium; this asks again, with
// each runtime's own Node and Playwright, so the claim cannot drift from reality.
describe.each(usable.map((runtime) => [runtime.name, runtime] as const))('runtime %s as installed', (name, runtime) => {
  it('its Node prints the catalogued version', async () => {
    const { stdout } = await run((await installed(name)).nodeBinary, ['--version']);
    expect(stdout.trim()).toBe(runtime.nodeJsVersion);
  });

  it(
    `drives Chromium exactly as the catalogue records (${runtime.browserSupport.chromium})`,
    { timeout: 120_000 },
    async () => {
      const { chromiumPath } = provided();
      const probe = await probeChromium(await installed(name), chromiumPath);
      const recorded = runtime.browserSupport;
      expect(recorded.chromium, 'a usable runtime must have been verified').not.toBe('UNVERIFIED');
      expect(probe.ok ? 'SUPPORTED' : 'UNSUPPORTED', probe.error).toBe(recorded.chromium);
      if (probe.ok) expect(chromiumMajor(probe.chromiumVersion ?? '')).toBe(recorded.chromiumVersion);
    },
  );
});
