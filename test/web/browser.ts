import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { services } from '#test-support';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = `${ROOT}bench/results/screenshots`;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium, as scripts/services.sh provides it (CHROMIUM_PATH), or /usr/bin/chromium. */
export async function launchChromium(): Promise<Browser> {
  let path = '/usr/bin/chromium';
  try {
    path = services().CHROMIUM_PATH || path;
  } catch {
    // services() needs the global setup; the default path is Debian's.
  }
  return chromium.launch({ executablePath: path, args: ARGS, headless: true });
}

/** Newest modification time under a folder, in ms. */
function newest(dir: string): number {
  return Math.max(
    ...readdirSync(dir).map((name) => {
      const path = `${dir}/${name}`;
      return statSync(path).isDirectory() ? newest(path) : statSync(path).mtimeMs;
    }),
  );
}

/**
 * The console must be built (npm install does it); a test run on a tree without it, or with
 * sources newer than the bundle, builds it first, so the browser never tests a stale bundle.
 */
export function ensureConsoleBuilt(): void {
  const built = `${ROOT}apps/web/dist/index.html`;
  if (existsSync(built) && statSync(built).mtimeMs > newest(`${ROOT}apps/web/src`)) return;
  execFileSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
}

/** Script errors and failed assertions in the page; network 4xx the console handles itself are not errors. */
export function watchConsole(page: Page, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (text.startsWith('Failed to load resource')) return;
    errors.push(`console: ${text}`);
  });
}

/** Serious or critical axe violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

/** A screenshot of the page in both themes: reloaded with ?theme= so the chart draws in that theme's colours. */
export async function screenshots(page: Page, name: string, ready: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const original = page.url();
  for (const theme of ['light', 'dark'] as const) {
    const url = new URL(original);
    url.searchParams.set('theme', theme);
    // The public status page has no theme switch: it follows the system setting, emulated here.
    await page.emulateMedia({ colorScheme: theme });
    await page.goto(url.toString());
    await page.locator(ready).first().waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${SCREENSHOTS}/${name}-${theme}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: null });
  await page.goto(original);
  await page.locator(ready).first().waitFor();
}

/** Signs in through the login page with a key, as a user does, and waits for the checks page. */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.fill('input[name=apiKey]', key);
  await page.click('button[type=submit]');
  await page.locator('h1', { hasText: 'Checks' }).waitFor();
}
