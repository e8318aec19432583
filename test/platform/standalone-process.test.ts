import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client } from '#test-vigil';
import { eventually, spawnApp, type AppProcess } from '#test-processes';

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-start-'));
const env = { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };

async function start(): Promise<{ app: AppProcess; url: string }> {
  const app = spawnApp('standalone', env);
  const line = await eventually(
    async () => app.output(),
    (out) => /"msg":"api listening"/.test(out) || app.child.exitCode !== null,
    60_000,
  );
  const url = /"url":"([^"]+)"/.exec(line.split('\n').find((l) => l.includes('api listening')) ?? '')?.[1];
  if (!url) throw new Error(`standalone did not start:\n${app.output()}`);
  return { app, url };
}

describe('npm start: the standalone process on embedded defaults', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints a generated admin key once, serves /health and OpenAPI, and drains on SIGTERM', async () => {
    const first = await start();
    // The banner follows the "api listening" line: it needs the URL the API got.
    await eventually(
      async () => first.app.output(),
      (out) => /Next steps:/.test(out),
      10_000,
    );
    const key = /Platform admin key[^\n]*\n\s+(vgl_\S+)/.exec(first.app.output())?.[1];
    expect(key).toMatch(/^vgl_/);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    const doc = (await (await fetch(`${first.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/v1/variables/{key}');
    const created = await client(first.url, key!).post('/v1/accounts', {
      name: 'Acme',
      plan: 'team',
      ownerEmail: 'ops@acme.test',
    });
    expect(created.status).toBe(201);
    expect(first.app.output()).not.toContain(created.body.apiKey.key); // keys never reach the log
    expect(await first.app.kill('SIGTERM')).toBe(0);

    const second = await start();
    expect(second.app.output()).not.toMatch(/Platform admin key/);
    expect(
      (await client(second.url, key!).post('/v1/accounts', { name: 'Again', plan: 'hobby', ownerEmail: 'b@acme.test' }))
        .status,
    ).toBe(201);
    expect(await second.app.kill('SIGTERM')).toBe(0);
  }, 120_000);

  it('stops start-up with a message naming a bad variable', async () => {
    const app = spawnApp('standalone', { ...env, PORT: 'eighty' });
    expect(await app.exited).toBe(1);
    expect(app.output()).toMatch(/PORT/);
  });
});
