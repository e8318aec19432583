import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv, vigil } from './run.ts';

/** `vigil checks create --url/--assert`, `checks test`, `checks trigger` and `heartbeat ping`, on the real binary. */
let server: TestVigil;
// Each test runs the real binary several times; on a loaded machine that outlasts the default 60 s.
vi.setConfig({ testTimeout: 240_000 });
let target: Server;
let base: string;

beforeAll(async () => {
  target = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  server = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

describe('checks that Vigil runs, from the CLI', () => {
  it('creates an API check from flags, triggers it and shows each assertion', async () => {
    const { env } = await ownerEnv(server);
    const created = await vigil(
      [
        'checks',
        'create',
        '--name',
        'Status API',
        '--type',
        'API',
        '--url',
        `${base}/status`,
        '--assert',
        'STATUS_CODE EQUALS 200',
        '--assert',
        'JSON_BODY $.status EQUALS ok',
        '--json',
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const check = JSON.parse(created.stdout);
    expect(check.request.assertions).toEqual([
      { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200' },
      { source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'ok' },
    ]);
    const triggered = await vigil(['checks', 'trigger', check.id], { env });
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.stdout).toMatch(/PASSED from local in \d+ ms, HTTP 200/);
    expect(triggered.stdout).toMatch(/JSON_BODY \$\.status EQUALS ok/);
  });

  it('tests a definition from a file, exiting 1 when it fails', async () => {
    const { env } = await ownerEnv(server);
    const file = join(mkdtempSync(join(tmpdir(), 'vigil-cli-')), 'check.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'x',
        checkType: 'API',
        request: { url: `${base}/`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '201' }] },
      }),
    );
    const run = await vigil(['checks', 'test', '--file', file], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAILED/);
    expect(run.stdout).toMatch(/NO\s+STATUS_CODE EQUALS 201\s+200/);
  });

  it('creates a heartbeat check, shows its ping URL and pings it without a key', async () => {
    const { env } = await ownerEnv(server);
    const created = await vigil(
      [
        'checks',
        'create',
        '--name',
        'Backup',
        '--type',
        'HEARTBEAT',
        '--heartbeat-period',
        '1d',
        '--heartbeat-grace',
        '30m',
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const token = /\/ping\/([A-Za-z0-9_-]+)/.exec(created.stdout)?.[1];
    expect(token).toBeDefined();
    const ping = await vigil(['heartbeat', 'ping', token!, '--api-url', server.url]);
    expect(ping.code, ping.stderr).toBe(0);
    expect(ping.stdout).toMatch(/Ping recorded for check .*: RECEIVED/);
    // Tokens are base64url: one may start with "-", and is still the token, not an unknown option.
    const dashed = await vigil(['heartbeat', 'ping', '-HiEevNJrcFuF9f7IdFnFLusyK8e', '--api-url', server.url]);
    expect(dashed.code).toBe(1);
    expect(dashed.stderr).not.toContain('unknown option');
    expect(dashed.stderr).toBe('Error: Unknown ping token\n');
    const bad = await vigil(
      ['checks', 'create', '--name', 'x', '--type', 'API', '--url', base, '--assert', 'BODY IS 1'],
      {
        env,
      },
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown source "BODY"/);
  });
});
