import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { ScriptFile, ScriptRunRequest } from './types.ts';
import { HARNESS_INSIDE, isSource, outputPath, type Transformer } from './transform.ts';

export const SCRIPT_MAX_BYTES = 256 * 1024;
export const FILES_MAX_BYTES = 1024 * 1024;
export const FILES_MAX_COUNT = 200;
/** The reporter's event log, inside /work; the runner reads it from there after the run. */
export const EVENTS_FILE = '.vigil-events.jsonl';
const CONFIG_FILE = '__vigil.config.cjs';
const SCRIPT_NAME = 'check.spec.ts';
const USER_CONFIG = /^playwright\.config\.(?:ts|js|mjs|cjs|mts|cts)$/;

export class ScriptInputError extends Error {}

export const CHROMIUM_SCRIPT_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** A relative POSIX path that stays inside /work, or an input error naming it. */
function safePath(path: string): string {
  const normal = posix.normalize(path.replace(/\\/g, '/'));
  if (
    path.length === 0 ||
    path.length > 512 ||
    path.includes('\0') ||
    normal.startsWith('/') ||
    normal === '.' ||
    normal.split('/').some((part) => part === '..' || part === 'node_modules') ||
    normal.startsWith('__vigil') ||
    normal.startsWith('.vigil')
  )
    throw new ScriptInputError(`files: ${JSON.stringify(path.slice(0, 100))} is not a usable relative path`);
  return normal;
}

function inputFiles(request: ScriptRunRequest): ScriptFile[] {
  if (request.script !== undefined && request.files !== undefined)
    throw new ScriptInputError('give either script or files, not both');
  if (request.script !== undefined) {
    if (Buffer.byteLength(request.script) > SCRIPT_MAX_BYTES)
      throw new ScriptInputError(`script: larger than ${SCRIPT_MAX_BYTES / 1024} KiB`);
    return [{ path: SCRIPT_NAME, content: request.script }];
  }
  if (!request.files || request.files.length === 0) throw new ScriptInputError('a script or files is required');
  if (request.files.length > FILES_MAX_COUNT) throw new ScriptInputError(`files: more than ${FILES_MAX_COUNT}`);
  const total = request.files.reduce((sum, file) => sum + Buffer.byteLength(file.content) + file.path.length, 0);
  if (total > FILES_MAX_BYTES) throw new ScriptInputError(`files: larger than ${FILES_MAX_BYTES / 1024} KiB in all`);
  const seen = new Set<string>();
  return request.files.map((file) => {
    const path = safePath(file.path);
    if (seen.has(path)) throw new ScriptInputError(`files: ${path} appears twice`);
    seen.add(path);
    return { path, content: file.content };
  });
}

export interface PreparedRun {
  /** The command inside the sandbox after the runtime's node. */
  args: string[];
}

/**
 * Writes the run's /work: every source transformed (types stripped, CommonJS unless it needs ESM),
 * other files as they are, and a generated Playwright config that wraps the user's (if any) with
 * what Vigil imposes: one worker, no retries, the budget, Debian's Chromium, the egress proxy,
 * and the harness's reporter.
 */
export async function prepareWorkDir(
  workDir: string,
  request: ScriptRunRequest,
  options: { nodeVersion: string; chromiumPath: string; transformer: Transformer },
): Promise<PreparedRun> {
  const files = inputFiles(request);
  let userConfig: string | undefined;
  for (const file of files) {
    let path = file.path;
    let content = file.content;
    if (isSource(path)) {
      const transformed = await options.transformer.transform(path, content, options.nodeVersion);
      path = outputPath(path, transformed.format);
      content = transformed.code;
      if (!userConfig && USER_CONFIG.test(posix.basename(file.path))) userConfig = path;
    }
    const target = join(workDir, ...path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') throw new ScriptInputError(`files: ${file.path} collides with another file`);
      throw error;
    });
  }
  const settings = {
    root: '/work',
    userConfig: userConfig ? `/work/${userConfig}` : undefined,
    timeoutMs: request.timeoutMs,
    reporter: `${HARNESS_INSIDE}/reporter.cjs`,
    outputFile: `/work/${EVENTS_FILE}`,
    chromiumPath: options.chromiumPath,
    chromiumArgs: CHROMIUM_SCRIPT_ARGS,
  };
  await writeFile(join(workDir, CONFIG_FILE), configSource(settings));
  await writeFile(join(workDir, EVENTS_FILE), '');
  return { args: ['/node_modules/@playwright/test/cli.js', 'test', '--config', `/work/${CONFIG_FILE}`] };
}

function configSource(settings: object): string {
  return `'use strict';
const path = require('node:path');
const settings = ${JSON.stringify(settings)};
let user = {};
if (settings.userConfig) {
  const loaded = require(settings.userConfig);
  user = (loaded && loaded.__esModule ? loaded.default : loaded && loaded.default) || loaded || {};
}
const base = settings.userConfig ? path.dirname(settings.userConfig) : settings.root;
const proxy = process.env.VIGIL_EGRESS_PROXY ? { server: process.env.VIGIL_EGRESS_PROXY } : undefined;
const imposed = (use) => {
  use = use || {};
  const launch = use.launchOptions || {};
  return {
    ...use,
    browserName: 'chromium',
    channel: undefined,
    headless: true,
    proxy,
    trace: 'off',
    video: 'off',
    screenshot: 'off',
    launchOptions: {
      ...launch,
      executablePath: settings.chromiumPath,
      args: [...(Array.isArray(launch.args) ? launch.args : []), ...settings.chromiumArgs],
    },
  };
};
const timeout = Math.min(typeof user.timeout === 'number' && user.timeout > 0 ? user.timeout : settings.timeoutMs, settings.timeoutMs);
const config = {
  ...user,
  testDir: path.resolve(base, user.testDir || '.'),
  timeout,
  globalTimeout: settings.timeoutMs,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  repeatEach: 1,
  maxFailures: 0,
  forbidOnly: false,
  shard: null,
  updateSnapshots: 'none',
  webServer: undefined,
  outputDir: '/tmp/vigil-test-results',
  preserveOutput: 'never',
  reporter: [[settings.reporter, { outputFile: settings.outputFile }]],
  use: imposed(user.use),
  projects: Array.isArray(user.projects)
    ? user.projects.map((project) => ({
        ...project,
        ...(project.testDir ? { testDir: path.resolve(base, project.testDir) } : {}),
        retries: 0,
        repeatEach: 1,
        use: imposed({ ...(user.use || {}), ...(project.use || {}) }),
      }))
    : undefined,
};
for (const key of Object.keys(config)) if (config[key] === undefined) delete config[key];
module.exports = config;
`;
}
