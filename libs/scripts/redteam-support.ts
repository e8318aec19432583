// Shared set-up of the scripts red-team suites: the real sandbox, the real runner on an installed
// runtime, and a loopback target that records what reached it. A missing piece fails the suite.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { createLogger } from '#core';
import { createSandbox, type Sandbox } from '#sandbox';
import { createScriptRunner, DEFAULT_CHROMIUM, type ScriptRunner, type ScriptRunRequest } from './index.ts';

export interface Rig {
  sandbox: Sandbox;
  runner: ScriptRunner;
  runtimeName: string;
  chromiumPath: string;
  target: { url: string; hits: string[] };
  request(rest: Partial<ScriptRunRequest>): ScriptRunRequest;
  close(): Promise<void>;
}

export async function startRig(): Promise<Rig> {
  const runtimes = inject('runtimes');
  const services = inject('services');
  if ('error' in runtimes) throw new Error(runtimes.error);
  const [runtimeName] = runtimes.installed;
  if (!runtimeName) throw new Error('the scripts red-team suites need an installed runtime');
  const logger = createLogger({ level: 'silent' });
  const sandbox = createSandbox({ logger });
  const probe = await sandbox.probe();
  if (!probe.available) throw new Error(`sandbox unavailable: ${probe.reason}`);
  const chromiumPath = 'error' in services ? undefined : services.CHROMIUM_PATH;
  const runner = createScriptRunner({
    sandbox,
    runtimesRoot: runtimes.root,
    logger,
    ...(chromiumPath ? { chromiumPath } : {}),
  });
  const ready = await runner.ready();
  if (!ready.ok) throw new Error(ready.reason);
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('content-type', 'text/html');
    res.end('<title>host target</title>target-ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    sandbox,
    runner,
    runtimeName,
    chromiumPath: chromiumPath ?? DEFAULT_CHROMIUM,
    target: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits },
    request: (rest) => ({
      kind: 'MULTI_STEP',
      runtimeName,
      env: {},
      timeoutMs: 60_000,
      allowPrivate: false,
      ...rest,
    }),
    async close() {
      await runner.close();
      await sandbox.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
