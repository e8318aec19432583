import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv, tempDir, vigil } from './run.ts';

/**
 * `vigil deploy` with alert channels of several types: secrets come from the environment variables
 * the file names, a second deploy changes nothing, and the key the server holds is checked by a
 * test send to a PagerDuty receiver on loopback (VIGIL_PAGERDUTY_EVENTS_URL).
 */
let server: TestVigil;
vi.setConfig({ testTimeout: 240_000 });
let receiver: Server;
const routingKeys: string[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      routingKeys.push(String((JSON.parse(body) as { routing_key?: string }).routing_key));
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"success"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v2/enqueue`;
  server = await startVigil({ env: { VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', VIGIL_PAGERDUTY_EVENTS_URL: url } });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const KEY_1 = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const KEY_2 = 'ffffeeeeddddccccbbbbaaaa99998888';
const GENIE_KEY = '0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d';

const project = {
  project: 'paging',
  alertChannels: [
    {
      logicalId: 'team',
      name: 'Team chat',
      type: 'slack',
      url: 'https://hooks.slack.com/services/T000/B000/XXXX',
      channel: '#alerts',
    },
    {
      logicalId: 'pager',
      name: 'Pager',
      type: 'PAGERDUTY',
      serviceKey: { env: 'PD_ROUTING_KEY' },
      serviceName: 'Checkout',
    },
    { logicalId: 'genie', name: 'Genie', type: 'OPSGENIE', apiKey: { env: 'GENIE_KEY' }, region: 'EU' },
    { logicalId: 'mail', name: 'Mail', type: 'EMAIL', address: 'oncall@example.com', sendDegraded: true },
  ],
};

describe('vigil deploy with channels of every kind', () => {
  it('reads secrets from the named variables, keeps them across deploys, and is idempotent', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const file = join(dir, 'vigil.config.yaml');
    writeFileSync(file, stringify(project));
    const run = (extra: Record<string, string>, ...args: string[]) =>
      vigil(args, { env: { ...env, ...extra }, cwd: dir });
    const channels = async () =>
      JSON.parse((await run({}, 'alert-channels', 'ls', '--json')).stdout) as Array<{
        id: string;
        type: string;
        config: Record<string, unknown>;
        sendDegraded: boolean;
      }>;

    // Without the Opsgenie key nothing is created: deploy checks every variable first.
    const refused = await run({ PD_ROUTING_KEY: KEY_1 }, 'deploy');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Secrets the plan needs are not set (nothing was changed)');
    expect(refused.stderr).toContain('alert-channel genie: apiKey reads $GENIE_KEY, which is not set');
    expect(await channels()).toEqual([]);
    const preview = await run({}, 'deploy', '--preview');
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('+ create alert-channel pager (Pager)');
    expect(preview.stdout).toContain('    serviceKey: {"env":"PD_ROUTING_KEY"}');
    expect(preview.stderr).toContain('alert-channel pager: serviceKey reads $PD_ROUTING_KEY, which is not set');

    const deployed = await run({ PD_ROUTING_KEY: KEY_1, GENIE_KEY }, 'deploy');
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain('Deployed: 4 created, 0 updated, 0 deleted');
    const byName = Object.fromEntries((await channels()).map((c) => [c.config.name, c]));
    expect(byName['Team chat [vigil:paging/team]']).toMatchObject({
      type: 'SLACK',
      config: { url: 'https://hooks.slack.com/services/T000/B000/XXXX', channel: '#alerts' },
    });
    expect(byName['Pager [vigil:paging/pager]']).toMatchObject({
      type: 'PAGERDUTY',
      config: { serviceName: 'Checkout', serviceKey: '********' },
    });
    expect(byName['Genie [vigil:paging/genie]']).toMatchObject({
      type: 'OPSGENIE',
      config: { region: 'EU', priority: 'P3', apiKey: '********' },
    });
    expect(byName['Mail [vigil:paging/mail]']).toMatchObject({ type: 'EMAIL', sendDegraded: true });
    const pagerId = byName['Pager [vigil:paging/pager]']!.id;
    const keyHeld = async () => {
      const sent = await run({}, 'alert-channels', 'test', pagerId);
      expect(sent.code, sent.stderr).toBe(0);
      return routingKeys.at(-1);
    };
    expect(await keyHeld()).toBe(KEY_1);

    // Masked secrets and server defaults are no change, with or without the variables set.
    for (const extra of [{}, { PD_ROUTING_KEY: KEY_2, GENIE_KEY }] as Array<Record<string, string>>) {
      const again = await run(extra, 'deploy');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('Nothing to change: the account matches vigil.config.yaml');
    }

    // An edit is a field-level update; with the variable unset the stored key stays.
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace('serviceName: Checkout', 'serviceName: Payments')
        .replace(/ {4}region: EU\n/, ''),
    );
    const edited = await run({}, 'deploy', '--preview');
    expect(edited.stdout).toContain('~ update alert-channel pager (Pager)');
    expect(edited.stdout).toContain('    serviceName: "Checkout" → "Payments"');
    expect(edited.stdout).toContain('~ update alert-channel genie (Genie)');
    expect(edited.stdout).toContain('    region: "EU" → "US"');
    expect(edited.stdout).toContain('Plan: 0 to create, 2 to update, 0 to delete');
    expect((await run({}, 'deploy')).code).toBe(0);
    expect(await keyHeld()).toBe(KEY_1);
    expect((await run({}, 'deploy')).stdout).toContain('Nothing to change');

    // An update made with the variable set sends it: a rotated key lands with the next change.
    writeFileSync(file, readFileSync(file, 'utf8').replace('serviceName: Payments', 'serviceName: Billing'));
    expect((await run({ PD_ROUTING_KEY: KEY_2 }, 'deploy')).code).toBe(0);
    expect(await keyHeld()).toBe(KEY_2);
    const output = refused.stderr + preview.stdout + deployed.stdout + JSON.stringify(await channels());
    for (const secret of [KEY_1, KEY_2, GENIE_KEY]) expect(output).not.toContain(secret);
  });

  it('refuses a secret written into the file, naming the field and what to write instead', async () => {
    const { env } = await ownerEnv(server);
    const dir = tempDir('vigil-project-');
    const leaked = { project: 'leak', alertChannels: [{ ...project.alertChannels[1], serviceKey: KEY_1 }] };
    writeFileSync(join(dir, 'vigil.config.json'), JSON.stringify(leaked));
    const run = await vigil(['deploy', '--preview'], { env, cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('alertChannels.0.serviceKey: is a secret and does not belong in the project file');
    expect(run.stderr).toContain('serviceKey: { env: NAME }');
    expect(run.stderr).not.toContain(KEY_1);
  });
});
