import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, tempDir, vigil } from './run.ts';

/**
 * `vigil alert-channels` for every type but WEBHOOK: the real binary against a Vigil whose
 * PagerDuty, Opsgenie and Telegram base URLs point at a receiver on loopback, so a test send
 * shows which secret the server really holds after each update.
 */
let server: TestVigil;
vi.setConfig({ testTimeout: 240_000 });
let receiver: Server;
let base: string;

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ url: request.url ?? '', headers: request.headers, body });
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"success"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startVigil({
    env: {
      VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      VIGIL_PAGERDUTY_EVENTS_URL: `${base}/pagerduty/v2/enqueue`,
      VIGIL_OPSGENIE_API_URL: `${base}/opsgenie`,
      VIGIL_TELEGRAM_API_URL: `${base}/telegram`,
    },
  });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const PD_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const PD_KEY_2 = 'ffffeeeeddddccccbbbbaaaa99998888';
const GENIE_KEY = '0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d';
const BOT_TOKEN = '123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';

function idOf(run: { code: number; stdout: string; stderr: string }): string {
  const id = /: ([0-9a-f-]{36})$/m.exec(run.stdout)?.[1];
  if (!id) throw new Error(`no id in ${JSON.stringify(run)}`);
  return id;
}

/** The last request the receiver got under a path prefix. */
const lastAt = (prefix: string) => received.filter((r) => r.url.startsWith(prefix)).at(-1);

describe.concurrent('alert-channels of every type', () => {
  it('create each type with its own flags; ls shows its target; get masks the secret', async ({ expect }) => {
    const { env } = await baseOwnerEnv(server);
    const dir = tempDir('vigil-secrets-');
    writeFileSync(join(dir, 'genie.txt'), `${GENIE_KEY}\n`);
    const create = (...args: string[]) => vigil(['alert-channels', 'create', ...args], { env, cwd: dir });
    const runs = await Promise.all([
      create('--type', 'email', '--name', 'Mail', '--address', 'oncall@example.com'),
      create('--type', 'slack', '--name', 'Team', '--url', `${base}/slack`, '--channel', '#alerts'),
      vigil(['alert-channels', 'create', '--type', 'PagerDuty', '--name', 'Pager', '--service-key', '-'], {
        env,
        input: `${PD_KEY}\n`,
      }),
      create('--type', 'opsgenie', '--name', 'Genie', '--api-key', '@genie.txt', '--region', 'eu', '--priority', 'p2'),
      create('--type', 'msteams', '--name', 'Teams', '--url', `${base}/teams`),
      create('--type', 'discord', '--name', 'Disco', '--url', `${base}/discord`, '--send-degraded'),
      create('--type', 'telegram', '--name', 'Bot', '--bot-token', BOT_TOKEN, '--chat-id', '-1001234567890'),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const [mail, team, pager, genie, teams, disco, bot] = runs.map(idOf);

    const ls = await vigil(['alert-channels', 'ls'], { env });
    expect(ls.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+TYPE\s+TARGET\s+SENDS$/);
    const row = (id: string) => ls.stdout.split('\n').find((line) => line.startsWith(id)) ?? '';
    expect(row(mail!)).toMatch(/\s+Mail\s+EMAIL\s+oncall@example\.com\s+failure, recovery$/);
    expect(row(team!)).toMatch(new RegExp(`\\s+Team\\s+SLACK\\s+#alerts via ${base}/slack\\s`));
    expect(row(pager!)).toMatch(/\s+Pager\s+PAGERDUTY\s+service \(unnamed\)\s/);
    expect(row(genie!)).toMatch(/\s+Genie\s+OPSGENIE\s+EU region, P2\s/);
    expect(row(teams!)).toMatch(new RegExp(`\\s+Teams\\s+MSTEAMS\\s+${base}/teams\\s`));
    expect(row(disco!)).toMatch(new RegExp(`\\s+Disco\\s+DISCORD\\s+${base}/discord\\s+failure, recovery, degraded$`));
    expect(row(bot!)).toMatch(/\s+Bot\s+TELEGRAM\s+chat -1001234567890\s/);

    const [pagerGet, genieJson, botJson, lsJson] = await Promise.all([
      vigil(['alert-channels', 'get', pager!], { env }),
      vigil(['alert-channels', 'get', genie!, '--json'], { env }),
      vigil(['alert-channels', 'get', bot!, '--json'], { env }),
      vigil(['alert-channels', 'ls', '--json'], { env }),
    ]);
    expect(pagerGet.stdout).toMatch(/^config\.serviceKey\s+\*{8}$/m);
    expect(pagerGet.stdout).toMatch(/^type\s+PAGERDUTY$/m);
    expect(JSON.parse(genieJson.stdout).config).toEqual({
      name: 'Genie',
      region: 'EU',
      priority: 'P2',
      apiKey: '********',
    });
    expect(JSON.parse(botJson.stdout).config).toEqual({ name: 'Bot', chatId: '-1001234567890', botToken: '********' });
    const everything = runs.map((run) => run.stdout + run.stderr).join('') + pagerGet.stdout + lsJson.stdout;
    for (const secret of [PD_KEY, GENIE_KEY, BOT_TOKEN]) expect(everything).not.toContain(secret);
  });

  it('update keeps the stored secret unless given, and changes only the named fields; test sends with it', async ({
    expect,
  }) => {
    const { env } = await baseOwnerEnv(server);
    const dir = tempDir('vigil-secrets-');
    writeFileSync(join(dir, 'new-key.txt'), PD_KEY_2);
    const run = (...args: string[]) => vigil(['alert-channels', ...args], { env, cwd: dir });
    const pager = idOf(
      await run('create', '--type', 'pagerduty', '--name', 'Pager', '--service-key', PD_KEY, '--no-send-recovery'),
    );
    const named = await run('update', pager, '--service-name', 'Checkout', '--json');
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({
      type: 'PAGERDUTY',
      sendRecovery: false,
      config: { name: 'Pager', serviceName: 'Checkout', serviceKey: '********' },
    });
    const sent = await run('test', pager);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^Outcome\s+delivered$/m);
    expect(JSON.parse(lastAt('/pagerduty/v2/enqueue')!.body)).toMatchObject({
      routing_key: PD_KEY,
      event_action: 'trigger',
    });
    expect(sent.stdout).not.toContain(PD_KEY);

    const rotated = await run('update', pager, '--service-key', '@new-key.txt', '--no-service-name');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect((await run('test', pager)).code).toBe(0);
    expect(JSON.parse(lastAt('/pagerduty/v2/enqueue')!.body)).toMatchObject({ routing_key: PD_KEY_2 });
    expect(JSON.parse((await run('get', pager, '--json')).stdout).config.serviceName).toBeNull();

    // Opsgenie: priority changed, region and key kept; the key goes out as GenieKey.
    const genie = idOf(
      await run('create', '--type', 'opsgenie', '--name', 'Genie', '--api-key', GENIE_KEY, '--region', 'EU'),
    );
    expect((await run('update', genie, '--priority', 'P1')).code).toBe(0);
    expect((await run('test', genie)).code).toBe(0);
    const alert = lastAt('/opsgenie/')!;
    expect(alert.headers.authorization).toBe(`GenieKey ${GENIE_KEY}`);
    expect(JSON.parse(alert.body)).toMatchObject({ priority: 'P1' });

    // Telegram: the chat changes, the token stays and is the path's secret part.
    const bot = idOf(
      await run('create', '--type', 'telegram', '--name', 'Bot', '--bot-token', BOT_TOKEN, '--chat-id', '42'),
    );
    expect((await run('update', bot, '--chat-id', '@vigil_alerts')).code).toBe(0);
    const botSent = await run('test', bot, '--json');
    expect(botSent.code, botSent.stderr).toBe(0);
    expect(JSON.parse(botSent.stdout).request.url).toBe(`${base}/telegram/bot********/sendMessage`);
    const message = lastAt(`/telegram/bot${BOT_TOKEN}/sendMessage`)!;
    expect(JSON.parse(message.body)).toMatchObject({ chat_id: '@vigil_alerts', parse_mode: 'HTML' });

    // Slack: the channel cleared, the URL kept.
    const slack = idOf(
      await run('create', '--type', 'slack', '--name', 'S', '--url', `${base}/slack`, '--channel', 'ops'),
    );
    const cleared = await run('update', slack, '--no-channel', '--json');
    expect(JSON.parse(cleared.stdout).config).toEqual({ name: 'S', url: `${base}/slack`, channel: null });
  });

  it("usage errors name the type's own flags; preview is for webhooks; the API's 400 names the field", async ({
    expect,
  }) => {
    const { env } = await baseOwnerEnv(server);
    const run = (...args: string[]) => vigil(['alert-channels', ...args], { env });
    const [foreign, missing, badType, badRegion, badKey] = await Promise.all([
      run('create', '--type', 'slack', '--name', 'S', '--url', 'https://hooks.slack.com/x', '--address', 'a@b.co'),
      run('create', '--type', 'telegram', '--name', 'T'),
      run('create', '--type', 'sms', '--name', 'X'),
      run('create', '--type', 'opsgenie', '--name', 'G', '--api-key', GENIE_KEY, '--region', 'APAC'),
      run('create', '--type', 'pagerduty', '--name', 'P', '--service-key', 'short'),
    ]);
    expect([foreign.code, missing.code, badType.code, badRegion.code]).toEqual([2, 2, 2, 2]);
    expect(foreign.stderr).toContain('--address does not apply to SLACK channels; their options are --url, --channel');
    expect(missing.stderr).toContain('TELEGRAM channels need --chat-id and --bot-token');
    expect(badType.stderr).toContain(
      'expected one of webhook, email, slack, pagerduty, opsgenie, msteams, discord, telegram',
    );
    expect(badRegion.stderr).toContain('expected one of US, EU');
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/config\.serviceKey: .*32-character/);

    const mail = idOf(await run('create', '--type', 'email', '--name', 'M', '--address', 'ops@example.com'));
    const [preview, wrongFlag] = await Promise.all([
      run('preview', mail),
      run('update', mail, '--url', 'https://example.com'),
    ]);
    expect(preview.code).toBe(2);
    expect(preview.stderr).toContain(
      `EMAIL channels have none. Send a sample instead: vigil alert-channels test ${mail}`,
    );
    expect(wrongFlag.code).toBe(2);
    expect(wrongFlag.stderr).toContain('--url does not apply to EMAIL channels; their options are --address');
  });

  it('preview of a whsec_ webhook channel shows the signature headers it is sent with, masked, never the secret', async ({
    expect,
  }) => {
    const { env } = await baseOwnerEnv(server);
    const secret = `whsec_${Buffer.from('preview-signing-key-of-32-bytes!').toString('base64')}`;
    const file = join(tempDir(), 'secret.txt');
    writeFileSync(file, secret);
    const run = (...args: string[]) => vigil(['alert-channels', ...args], { env });
    const hook = idOf(
      await run('create', '--type', 'webhook', '--name', 'W', '--url', `${base}/hook`, '--secret', `@${file}`),
    );
    const preview = await run('preview', hook);
    expect(preview.code, preview.stderr).toBe(0);
    // Present, as on a real delivery, but masked: the preview renders a config the caller supplies,
    // so a real signature would make it a signing oracle for bodies of the caller's choice.
    expect(preview.stdout).toMatch(/^webhook-signature: \*{8}$/m);
    expect(preview.stdout).toMatch(/^x-service-signature: \*{8}$/m);
    expect(preview.stdout).toMatch(/^webhook-id: \S+$/m);
    expect(preview.stdout).toMatch(/^webhook-timestamp: \d+$/m);
    expect(preview.stdout).not.toContain(secret);
    expect(preview.stdout).not.toContain(secret.slice('whsec_'.length));
  });
});
