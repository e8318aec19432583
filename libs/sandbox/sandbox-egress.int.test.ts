import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALLOW_PRIVATE_HINT } from '#probes';
import { leftoverProcesses, requireSandbox, runScript, testRuntimeDir } from './test-fixture.ts';
import { startTargets, type Targets } from './test-targets.ts';
import type { Sandbox } from './types.ts';

// Egress from inside the sandbox: only through the proxy named by HTTP(S)_PROXY, under the policy.
let sandbox: Sandbox;
let runtimeDir: string;
let targets: Targets;

beforeAll(async () => {
  targets = await startTargets();
  sandbox = await requireSandbox({ trustedCa: [targets.ca] });
  runtimeDir = testRuntimeDir();
});
afterEach(() => {
  expect(leftoverProcesses()).toEqual([]);
});
afterAll(async () => {
  await sandbox.close();
  await targets.close();
  rmSync(runtimeDir, { recursive: true, force: true });
});

/** In-sandbox helpers: absolute-form (how axios and curl talk to an HTTP proxy) and CONNECT + TLS. */
const CLIENT = `
const http = require('http'); const tls = require('tls');
const proxy = new URL(process.env.HTTPS_PROXY);
const absolute = (url) => new Promise((resolve) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host } }, (res) => {
    let body = ''; res.on('data', (c) => (body += c)); res.on('end', () => resolve({ status: res.statusCode, body }));
  });
  req.on('error', (e) => resolve({ error: e.code || e.message })); req.end();
});
const overConnect = (authority, path) => new Promise((resolve) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: authority });
  req.on('connect', (res, socket) => {
    if (res.statusCode !== 200) return resolve({ status: res.statusCode });
    const secure = tls.connect({ socket, ca: process.env.TEST_CA, servername: 'localhost' }, () =>
      secure.write('GET ' + path + ' HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n'));
    let text = ''; secure.on('data', (c) => (text += c)); secure.on('end', () => resolve({ status: 200, text }));
    secure.on('error', (e) => resolve({ error: e.message }));
  });
  req.on('error', (e) => resolve({ error: e.code || e.message })); req.end();
});
`;

const runClient = async (body: string, allowPrivate: boolean) => {
  const { outcome } = await runScript(sandbox, runtimeDir, `${CLIENT}\n(async () => {\n${body}\n})();`, {
    allowPrivate,
    env: { TEST_CA: targets.ca },
  });
  expect(outcome.exitCode, outcome.stderr).toBe(0);
  return outcome.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
};

describe('sandbox egress with allowPrivate=false', () => {
  it('refuses private targets, by address and by name, with the policy message', async () => {
    const results = await runClient(
      `for (const url of ['http://127.0.0.1:${targets.httpPort}/', 'http://localhost:${targets.httpPort}/',
                          'http://[::1]:${targets.httpPort}/', 'https://localhost:${targets.httpsPort}/',
                          'http://169.254.169.254/latest/meta-data/'])
         console.log(JSON.stringify(await absolute(url)));
       console.log(JSON.stringify(await overConnect('localhost:${targets.httpsPort}', '/')));
       console.log(JSON.stringify(await overConnect('127.0.0.1:6379', '/')));`,
      false,
    );
    expect(results).toHaveLength(7);
    for (const result of results) expect(result.status).toBe(403);
    for (const result of results.slice(0, 3)) expect(result.body).toContain(ALLOW_PRIVATE_HINT);
    expect(results[4].body).toContain('metadata');
  });
});

describe('sandbox egress with allowPrivate=true', () => {
  it('reaches a local HTTP server with absolute-form requests', async () => {
    const [result] = await runClient(
      `console.log(JSON.stringify(await absolute('http://localhost:${targets.httpPort}/plain?x=1')));`,
      true,
    );
    expect(result).toEqual({ status: 200, body: `http GET /plain?x=1 host=localhost:${targets.httpPort} body=` });
  });

  it('reaches a local HTTPS server through CONNECT, TLS end to end against its own certificate', async () => {
    const [result] = await runClient(
      `console.log(JSON.stringify(await overConnect('localhost:${targets.httpsPort}', '/tunnel')));`,
      true,
    );
    expect(result.status).toBe(200);
    expect(result.text).toMatch(/^HTTP\/1.1 200/);
    expect(result.text).toContain('https GET /tunnel host=localhost');
  });

  it('reaches a local HTTPS server with axios-style absolute-form https://', async () => {
    const [result] = await runClient(
      `console.log(JSON.stringify(await absolute('https://localhost:${targets.httpsPort}/axios')));`,
      true,
    );
    expect(result).toEqual({ status: 200, body: `https GET /axios host=localhost:${targets.httpsPort} body=` });
  });

  it('runs Debian chromium headless inside the sandbox, its traffic through the proxy', async () => {
    const { outcome } = await runScript(sandbox, runtimeDir, '', {
      allowPrivate: true,
      memoryBytes: 1024 * 1024 * 1024,
      timeoutMs: 60_000,
      command: [
        '/usr/bin/chromium',
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--proxy-server=http://127.0.0.1:3128',
        // Chromium sends loopback targets direct unless told otherwise; there is no direct route here.
        '--proxy-bypass-list=<-loopback>',
        '--dump-dom',
        `http://localhost:${targets.httpPort}/from-chromium`,
      ],
    });
    expect(outcome.exitCode, outcome.stderr.slice(-2000)).toBe(0);
    expect(outcome.stdout).toContain(`http GET /from-chromium host=localhost:${targets.httpPort}`);
  });
});
