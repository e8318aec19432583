import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CHROMIUM_ARGS } from '#probes';
import type { InstalledRuntime } from './install.ts';

const run = promisify(execFile);

export interface ChromiumProbe {
  ok: boolean;
  /** The browser's version as Playwright reports it, when it launched. */
  chromiumVersion?: string;
  error?: string;
}

// Runs in the runtime's own Node with the runtime's own Playwright: launch, open a page, navigate,
// evaluate. That is the least a script needs; anything failing here fails every browser script.
const probe = `
const [dir, executablePath, argsJson] = process.argv.slice(1);
const { chromium } = require(require('node:path').join(dir, 'node_modules', 'playwright'));
(async () => {
  const browser = await chromium.launch({ executablePath, args: JSON.parse(argsJson), timeout: 30000 });
  try {
    const page = await browser.newPage();
    await page.goto('data:text/html,<title>probe</title><p id="p">ok</p>');
    const text = await page.textContent('#p');
    const sum = await page.evaluate(() => 40 + 2);
    if (text !== 'ok' || sum !== 42 || (await page.title()) !== 'probe') throw new Error('page did not render');
    process.stdout.write(JSON.stringify({ ok: true, chromiumVersion: browser.version() }));
  } finally {
    await browser.close();
  }
})().catch((error) => {
  process.stdout.write(JSON.stringify({ ok: false, error: String(error && error.message || error).slice(0, 2000) }));
});
`;

/**
 * Whether the runtime's own Playwright can drive the Chromium at chromiumPath. The answer is
 * recorded in the catalogue (browserSupport); libs/runtimes/browser.int.test.ts re-asks it.
 */
export async function probeChromium(
  runtime: InstalledRuntime,
  chromiumPath: string,
  timeoutMs = 90_000,
): Promise<ChromiumProbe> {
  try {
    const { stdout } = await run(
      runtime.nodeBinary,
      ['-e', probe, runtime.dir, chromiumPath, JSON.stringify(CHROMIUM_ARGS)],
      { cwd: runtime.dir, timeout: timeoutMs, maxBuffer: 1024 * 1024 },
    );
    return JSON.parse(stdout) as ChromiumProbe;
  } catch (error) {
    return { ok: false, error: (error as Error).message.slice(0, 2000) };
  }
}

/** "156.0.8078.108" → "156". */
export function chromiumMajor(version: string): string {
  return version.split('.')[0] ?? version;
}
