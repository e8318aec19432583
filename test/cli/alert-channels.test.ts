import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { eventually } from '#test-processes';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, vigil } from './run.ts';

/**
 * `vigil alert-channels`: the real binary against a Vigil started in this process, delivering to
 * a receiver on the loopback interface (which Vigil refuses unless VIGIL_WEBHOOK_ALLOW_PRIVATE).
 */
let server: TestVigil;
// Each test runs the real binary many times; on a loaded machine that outlasts the default 60 s.
vi.setConfig({ testTimeout: 240_000 });
let receiver: Server;
let receiverUrl: string;

interface Received {
  method: string;
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
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const failing = request.url?.startsWith('/fail') === true;
      response
        .writeHead(failing ? 503 : 200, { 'content-type': 'text/plain' })
        .end(failing ? 'down for maintenance' : 'thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startVigil({ env: { VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const ownerEnv = () => baseOwnerEnv(server);
const SECRET = 'whsec_c2VjcmV0LWZvci10aGUtY2xpLXRlc3Q=';

function idOf(run: { stdout: string }): string {
  const id = /: ([0-9a-f-]{36})$/m.exec(run.stdout)?.[1];
  if (!id) throw new Error(`no id in ${JSON.stringify(run.stdout)}`);
  return id;
}

describe.concurrent('alert-channels', () => {
  it('create, ls, get with the secret masked', async ({ expect }) => {
    const { env } = await ownerEnv();
    const [ops, slack] = await Promise.all([
      vigil(
        [
          'alert-channels',
          'create',
          '--name',
          'Ops',
          '--url',
          `${receiverUrl}/ops`,
          '--secret',
          SECRET,
          '--header',
          'X-Team: ops',
          '--send-degraded',
        ],
        { env },
      ),
      vigil(
        [
          'alert-channels',
          'create',
          '--name',
          'Chat',
          '--url',
          `${receiverUrl}/chat`,
          '--method',
          'PUT',
          '--template',
          '{"text":"{{ALERT_TITLE}}"}',
          '--no-send-recovery',
          '--json',
        ],
        { env },
      ),
    ]);
    // The CLI cannot know the server's policy; for a loopback URL it says what the default one does.
    expect(ops.stderr).toMatch(/^Warning: 127\.0\.0\.1 is a private address: .*VIGIL_ALLOW_PRIVATE_TARGETS=true\n$/);
    expect(ops.code).toBe(0);
    expect(ops.stdout).toMatch(/^Created alert channel Ops: [0-9a-f-]{36}\n$/);
    expect(ops.stdout).not.toContain(SECRET);
    const opsId = idOf(ops);
    const chat = JSON.parse(slack.stdout);
    expect(chat).toMatchObject({
      type: 'WEBHOOK',
      sendFailure: true,
      sendRecovery: false,
      config: { name: 'Chat', method: 'PUT', template: '{"text":"{{ALERT_TITLE}}"}', webhookSecret: null },
    });

    const [ls, lsJson, get, getJson] = await Promise.all([
      vigil(['alert-channels', 'ls'], { env }),
      vigil(['alert-channels', 'ls', '--json'], { env }),
      vigil(['alert-channels', 'get', opsId], { env }),
      vigil(['alert-channels', 'get', opsId, '--json'], { env }),
    ]);
    const lines = ls.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+TYPE\s+TARGET\s+SENDS$/);
    expect(lines).toHaveLength(3);
    expect(ls.stdout).toMatch(
      new RegExp(`^${opsId}\\s+Ops\\s+WEBHOOK\\s+POST\\s+${receiverUrl}/ops\\s+failure, recovery, degraded$`, 'm'),
    );
    expect(ls.stdout).toMatch(
      new RegExp(`^${chat.id}\\s+Chat\\s+WEBHOOK\\s+PUT\\s+${receiverUrl}/chat\\s+failure$`, 'm'),
    );
    expect((JSON.parse(lsJson.stdout) as Array<{ id: string }>).map((channel) => channel.id).sort()).toEqual(
      [opsId, chat.id].sort(),
    );

    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^config\.webhookSecret\s+\*{8}$/m);
    expect(get.stdout).toMatch(/^config\.headers\s+\{"key":"X-Team","value":"ops"\}$/m);
    expect(get.stdout).toMatch(/^sendDegraded\s+true$/m);
    expect(get.stdout + getJson.stdout + lsJson.stdout).not.toContain(SECRET);
    expect(JSON.parse(getJson.stdout).config.webhookSecret).toBe('********');
  });

  it('test delivers a signed sample alert to the receiver; a failing receiver exits 1; deliveries lists both attempts', async ({
    expect,
  }) => {
    const { env } = await ownerEnv();
    const [good, bad] = await Promise.all([
      vigil(
        [
          'alert-channels',
          'create',
          '--name',
          'Good',
          '--url',
          `${receiverUrl}/good`,
          '--secret',
          SECRET,
          '--header',
          'X-Team: ops',
        ],
        { env },
      ),
      vigil(['alert-channels', 'create', '--name', 'Bad', '--url', `${receiverUrl}/fail`], { env }),
    ]);
    const goodId = idOf(good);
    const badId = idOf(bad);

    const [delivered, deliveredJson, failed] = await Promise.all([
      vigil(['alert-channels', 'test', goodId], { env }),
      vigil(['alert-channels', 'test', goodId, '--json'], { env }),
      vigil(['alert-channels', 'test', badId], { env }),
    ]);
    expect(delivered.stderr).toBe('');
    expect(delivered.code).toBe(0);
    expect(delivered.stdout).toMatch(/^Outcome\s+delivered$/m);
    expect(delivered.stdout).toMatch(/^Status\s+200$/m);
    expect(delivered.stdout).toMatch(/^Duration\s+\d+ ms$/m);
    expect(delivered.stdout).toMatch(new RegExp(`^URL\\s+${receiverUrl}/good$`, 'm'));
    expect(delivered.stdout).toMatch(/^Response\s+thanks$/m);

    const answer = JSON.parse(deliveredJson.stdout);
    expect(answer).toMatchObject({
      outcome: 'delivered',
      statusCode: 200,
      responseBody: 'thanks',
      error: null,
      request: { url: `${receiverUrl}/good` },
    });
    expect(JSON.parse(answer.request.body)).toMatchObject({ ALERT_TYPE: 'ALERT_FAILURE' });

    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^Outcome\s+failed$/m);
    expect(failed.stdout).toMatch(/^Status\s+503$/m);
    expect(failed.stdout).toMatch(/^Response\s+down for maintenance$/m);
    expect(failed.stderr).toContain('Error: The test message was not delivered (failed: HTTP 503)');

    // What the receiver saw: the sample alert, our header, and a Standard Webhooks signature.
    const goodRequests = received.filter((request) => request.url === '/good');
    expect(goodRequests).toHaveLength(2);
    for (const request of goodRequests) {
      expect(request.method).toBe('POST');
      expect(request.headers['x-team']).toBe('ops');
      expect(request.headers['webhook-signature']).toMatch(/^v1,/);
      expect(JSON.parse(request.body)).toMatchObject({ ALERT_TYPE: 'ALERT_FAILURE' });
    }

    const [log, logJson, failedOnly, deliveredOnly] = await Promise.all([
      vigil(['alert-channels', 'deliveries', goodId], { env }),
      vigil(['alert-channels', 'deliveries', goodId, '--json', '--limit', '1'], { env }),
      vigil(['alert-channels', 'deliveries', badId, '--outcome', 'failed', '--json'], { env }),
      vigil(['alert-channels', 'deliveries', badId, '--outcome', 'delivered'], { env }),
    ]);
    const lines = log.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^AT\s+DELIVERY\s+ALERT\s+ATTEMPT\s+OUTCOME\s+STATUS\s+MS\s+RETRY\s+ERROR$/);
    expect(lines).toHaveLength(3);
    for (const line of lines.slice(1))
      expect(line).toMatch(
        /^\d{4}-\d\d-\d\dT\S+Z\s+[0-9a-f-]{36}\s+ALERT_FAILURE \(test\)\s+1\s+delivered\s+200\s+\d+\s+-\s+-$/,
      );

    const [latest] = JSON.parse(logJson.stdout);
    expect(JSON.parse(logJson.stdout)).toHaveLength(1);
    expect(latest).toMatchObject({
      channelId: goodId,
      alertType: 'ALERT_FAILURE',
      attempt: 1,
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      responseBody: 'thanks',
      test: true,
      // A test message is one attempt, never retried.
      willRetry: false,
      nextAttemptAt: null,
    });
    expect(Object.keys(latest).sort()).toEqual([
      'alertType',
      'at',
      'attempt',
      'channelId',
      'checkId',
      'deliveryId',
      'durationMs',
      'error',
      'nextAttemptAt',
      'outcome',
      'responseBody',
      'statusCode',
      'test',
      'willRetry',
    ]);

    const failures = JSON.parse(failedOnly.stdout);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      channelId: badId,
      outcome: 'failed',
      statusCode: 503,
      responseBody: 'down for maintenance',
      test: true,
    });
    expect(deliveredOnly.code).toBe(0);
    expect(deliveredOnly.stdout).toBe('');
    expect(deliveredOnly.stderr).toContain('(none)');
  });

  it('a real alert that the receiver refuses: the log says it will be retried, and when', async ({ expect }) => {
    const { env } = await ownerEnv();
    const check = await vigil(['checks', 'create', '--name', 'Flaky', '--type', 'API', '--get', 'id'], { env });
    const channel = await vigil(
      ['alert-channels', 'create', '--name', 'Down', '--url', `${receiverUrl}/fail-real`, '--get', 'id'],
      { env },
    );
    const [checkId, channelId] = [check.stdout.trim(), channel.stdout.trim()];
    expect((await vigil(['alert-channels', 'subscribe', channelId, '--check', checkId], { env })).code).toBe(0);
    const result = { checkId, checkType: 'API', runLocation: 'eu-west-1', hasFailures: true, responseTime: 100 };
    const sent = await vigil(['results', 'send', '-'], { env, input: JSON.stringify(result) + '\n' });
    expect(sent.code, sent.stderr).toBe(0);

    // The first attempt fails (503); the dispatcher schedules another (20 s later by default), and
    // that first entry keeps saying so after the retry is made.
    const log = await eventually(
      () => vigil(['alert-channels', 'deliveries', channelId], { env }),
      (run) => /\sfailed\s/.test(run.stdout),
      60_000,
      500,
    );
    const first = log.stdout.trimEnd().split('\n').at(-1)!;
    expect(first).toMatch(
      /^\S+Z\s+[0-9a-f-]{36}\s+ALERT_FAILURE\s+1\s+failed\s+503\s+\d+\s+yes, \d{4}-\d\d-\d\dT\S+Z(\s|$)/,
    );
    const [entry] = JSON.parse(
      (await vigil(['alert-channels', 'deliveries', channelId, '--json'], { env })).stdout,
    ).slice(-1);
    expect(entry).toMatchObject({ attempt: 1, outcome: 'failed', willRetry: true });
    expect(first).toContain(`yes, ${entry.nextAttemptAt}`);
    expect(Date.parse(entry.nextAttemptAt)).toBeGreaterThan(Date.parse(entry.at));
  });

  it('usage and API errors: no --url, a bad --outcome, an unknown channel, a URL that is not http', async ({
    expect,
  }) => {
    const { env } = await ownerEnv();
    const [noUrl, badOutcome, unknown, badUrl] = await Promise.all([
      vigil(['alert-channels', 'create', '--name', 'X'], { env }),
      vigil(['alert-channels', 'deliveries', '00000000-0000-4000-8000-000000000001', '--outcome', 'lost'], { env }),
      vigil(['alert-channels', 'test', '00000000-0000-4000-8000-000000000001'], { env }),
      vigil(['alert-channels', 'create', '--name', 'X', '--url', 'ftp://example.com/hook'], { env }),
    ]);
    expect([noUrl.code, badOutcome.code]).toEqual([2, 2]);
    expect(noUrl.stderr).toContain('WEBHOOK channels need --url');
    expect(badOutcome.stderr).toContain('Allowed choices are delivered, failed, refused');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: .*not found/m);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('must be an http or https URL');
  });
});
