/**
 * Alert channel senders, per type: messages built and sent per second, 32 at a time, to a local
 * receiver (node:http on loopback; a real SMTP server for EMAIL), beside the WEBHOOK type as the
 * baseline. This measures the senders, not the dispatcher's durable bookkeeping (bench webhooks does).
 *
 *   npm run bench -- channels [--n 2000]
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import type { AlertChannel } from '#domain';
import { buildOutgoing, DEFAULT_CHANNEL_ENDPOINTS, sendEmail, type ChannelEndpoints } from '#notify';
import { deliverWebhook, type TemplateVariables } from '#webhooks';
import { startSmtpReceiver } from '../test/alerting/smtp-receiver.ts';
import { printMachine, printTable, writeResults } from './support/report.ts';
import { ratio, round } from './support/stats.ts';

const event: TemplateVariables['event'] = {
  CHECK_NAME: 'Checkout API',
  CHECK_ID: '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f',
  CHECK_TYPE: 'API',
  ALERT_TITLE: 'Check "Checkout API" is failing',
  ALERT_TYPE: 'ALERT_FAILURE',
  CHECK_RESULT_ID: '7d9f8e6c-5b4a-4392-8187-6f5e4d3c2b1a',
  CHECK_ERROR_MESSAGE: 'expected 200, got 503',
  RESPONSE_TIME: 812,
  API_CHECK_RESPONSE_STATUS_CODE: 503,
  API_CHECK_RESPONSE_STATUS_TEXT: 'Service Unavailable',
  RUN_LOCATION: 'eu-west-1',
  RESULT_LINK: 'http://localhost:3000/v1/check-results/x/y',
  SSL_DAYS_REMAINING: null,
  SSL_CHECK_DOMAIN: null,
  STARTED_AT: '2026-11-25T10:00:00.000Z',
  TAGS: ['prod'],
  GROUP_NAME: null,
  IS_REMINDER: false,
  REMINDER_SEQUENCE: 0,
};

const options = {
  sendFailure: true,
  sendRecovery: true,
  sendDegraded: false,
  sslExpiry: false,
  sslExpiryThreshold: 30,
};
const common = { id: '0b6c4a52-9e1d-4f3a-8c7b-2d5e6f708192', accountId: 'bench', ...options };

async function eachLimited(n: number, limit: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { n: { type: 'string', default: '2000' } } });
  const n = Number(values.n);
  const http = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(202).end('{"status":"success"}'));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const smtp = await startSmtpReceiver({ user: 'bench', password: 'bench' });
  const endpoints: ChannelEndpoints = {
    ...DEFAULT_CHANNEL_ENDPOINTS,
    smtpUrl: `smtp://bench:bench@127.0.0.1:${smtp.port}`,
    pagerDutyEventsUrl: `${base}/v2/enqueue`,
    opsgenieApiUrl: base,
    telegramApiUrl: base,
  };
  const secret = randomBytes(16).toString('hex');
  const channels: AlertChannel[] = [
    {
      ...common,
      type: 'WEBHOOK',
      config: {
        name: 'w',
        url: `${base}/hook`,
        method: 'POST',
        headers: [],
        queryParameters: [],
        template: null,
        webhookSecretEncrypted: 'sealed',
      },
    },
    { ...common, type: 'SLACK', config: { name: 's', url: `${base}/slack`, channel: null } },
    { ...common, type: 'MSTEAMS', config: { name: 't', url: `${base}/teams` } },
    { ...common, type: 'DISCORD', config: { name: 'd', url: `${base}/discord` } },
    { ...common, type: 'TELEGRAM', config: { name: 'tg', chatId: '1', botTokenEncrypted: 'sealed' } },
    { ...common, type: 'PAGERDUTY', config: { name: 'pd', serviceName: null, serviceKeyEncrypted: 'sealed' } },
    { ...common, type: 'OPSGENIE', config: { name: 'og', region: 'US', priority: 'P3', apiKeyEncrypted: 'sealed' } },
    { ...common, type: 'EMAIL', config: { name: 'e', address: 'oncall@example.com' } },
  ];
  // The baseline again at the end: the machine is shared, and later rows run on a warmer process.
  channels.push(channels[0]!);
  const variables: TemplateVariables = { event, account: {}, group: {}, secretKeys: [] };
  const rows: { type: string; perSecond: number; failed: number }[] = [];
  printMachine();
  for (const channel of channels) {
    let failed = 0;
    const count = channel.type === 'EMAIL' ? Math.min(n, 500) : n;
    // Untimed first: JIT and the keep-alive pool warm up before any type is timed.
    await eachLimited(100, 32, (i) => send(channel, i).then(() => undefined));
    failed = 0;
    const started = performance.now();
    await eachLimited(count, 32, async (i) => {
      if ((await send(channel, i)) !== 'delivered') failed++;
    });
    rows.push({ type: channel.type, perSecond: round(count / ((performance.now() - started) / 1000), 0), failed });
  }
  async function send(channel: AlertChannel, i: number) {
    {
      const outgoing = buildOutgoing(channel, variables, {
        endpoints,
        publicUrl: 'http://localhost:3000',
        region: 'bench',
        now: new Date(),
        open: () => secret,
      });
      const deliveryId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const result =
        outgoing.kind === 'email'
          ? await sendEmail(outgoing.message, {
              smtpUrl: endpoints.smtpUrl,
              from: endpoints.smtpFrom,
              allowPrivate: true,
              timeoutMs: 10_000,
              deliveryId,
            })
          : await deliverWebhook(outgoing.message, {
              timeoutMs: 10_000,
              allowPrivate: true,
              userAgent: 'bench',
              deliveryId,
              secret: outgoing.signingSecret,
            });
      return result.outcome;
    }
  }
  // The first WEBHOOK row still pays for warming the process (JIT, sockets); the last, run again
  // after every other type, is the fair baseline.
  rows[0]!.type = 'WEBHOOK (first, warming up)';
  const baseline = rows.at(-1)!.perSecond;
  printTable(
    `Alert channel senders: deliveries/s, 32 at a time, to loopback receivers (n=${n}; EMAIL n=${Math.min(n, 500)})`,
    ['type', 'deliveries/s', 'vs WEBHOOK', 'not delivered'],
    rows.map((row) => [row.type, row.perSecond, ratio(row.perSecond, baseline), row.failed]),
  );
  writeResults('channels', { n, rows });
  await smtp.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}
