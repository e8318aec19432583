import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { at, channelSetup, json } from './channel-setup.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.ts';

// Issue 22: EMAIL (a real SMTP server on loopback), SLACK, MSTEAMS, DISCORD and TELEGRAM through the
// real dispatcher: a failing then recovering check gives two messages of the shape each service documents.
const smtpPassword = 's3cret/smtp pass';
const botToken = `123456789:${'AAbbCCdd_-'.repeat(4)}`;

describe('email and chat channels end to end', () => {
  let vigil: TestVigil;
  let smtp: SmtpReceiver;
  let chat: Receiver;
  beforeAll(async () => {
    smtp = await startSmtpReceiver({ user: 'vigil', password: smtpPassword });
    chat = await startReceiver(() => 200);
    vigil = await startVigil({
      env: {
        VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
        VIGIL_WEBHOOK_RETRY_DELAY_MS: '600',
        VIGIL_SMTP_URL: `smtp://vigil:${encodeURIComponent(smtpPassword)}@127.0.0.1:${smtp.port}`,
        VIGIL_SMTP_FROM: 'Vigil Alerts <alerts@vigil.test>',
        VIGIL_TELEGRAM_API_URL: chat.url,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
    await smtp?.close();
    await chat?.close();
  });

  /** Fails at minute 1, recovers at minute 2; resolves with the requests whose body names the check. */
  async function failThenRecover(send: (minutes: number, failing: boolean) => Promise<void>, count: () => number) {
    await send(0, false);
    await send(1, true);
    await eventually(
      async () => count(),
      (n) => n >= 1,
      20_000,
    );
    await send(2, false);
    await eventually(
      async () => count(),
      (n) => n >= 2,
      20_000,
    );
  }

  it('EMAIL: one email on failure and one on recovery, HTML and plain text, through an authenticated relay', async () => {
    const address = `oncall+${Date.now()}@example.com`;
    const { send, channel, account } = await channelSetup(vigil, {
      type: 'EMAIL',
      config: { name: 'mail', address },
    });
    expect(channel.config).toEqual({ name: 'mail', address });
    const mine = () => smtp.mails.filter((mail) => mail.to.includes(address));
    await failThenRecover(send, () => mine().length);
    const [failure, recovery] = mine();
    expect(mine()).toHaveLength(2);
    for (const mail of [failure!, recovery!]) {
      expect(mail.user).toBe('vigil');
      expect(mail.from).toBe('alerts@vigil.test');
      expect(mail.parsed.from?.value).toEqual([{ address: 'alerts@vigil.test', name: 'Vigil Alerts' }]);
      expect(mail.parsed.to).toMatchObject({ value: [{ address }] });
      expect(mail.parsed.messageId).toMatch(/^<[0-9a-f-]{36}@vigil\.alerts>$/);
      expect(mail.parsed.html).toBeTruthy();
      expect(mail.parsed.text).toContain('Check: Checkout API');
    }
    expect(failure!.parsed.subject).toBe('Check "Checkout API" is failing');
    expect(failure!.parsed.text).toContain('Checkout API failed in eu-west-1.');
    expect(failure!.parsed.text).toContain('Error: expected 200, got 503');
    expect(failure!.parsed.text).toContain(`When: ${at(1)}`);
    expect(failure!.parsed.text).toMatch(/View result: http:\/\/\S+\/checks\/[0-9a-f-]+\/results\/[0-9a-f-]+/);
    expect(failure!.parsed.html).toContain('expected 200, got 503');
    expect(failure!.parsed.html).toMatch(/<a href="http:\/\/[^"]+\/checks\/[^"]+"[^>]*>View result<\/a>/);
    expect(recovery!.parsed.subject).toBe('Check "Checkout API" has recovered');
    expect(recovery!.parsed.text).toContain('Checkout API has recovered and is passing again.');

    const log = await account.owner.get(`/v1/alert-channels/${channel.id}/deliveries`);
    expect((log.body as { outcome: string; statusCode: number }[]).map((e) => [e.outcome, e.statusCode])).toEqual([
      ['delivered', 250],
      ['delivered', 250],
    ]);
    expect(JSON.stringify(log.body)).not.toContain(smtpPassword);
    const test = await account.owner.post(`/v1/alert-channels/${channel.id}/test`);
    expect(test.body).toMatchObject({ outcome: 'delivered', request: { url: `mailto:${address}` } });
    expect(JSON.stringify(test.body)).not.toContain(smtpPassword);
  }, 60_000);

  it('SLACK: Block Kit blocks with a text fallback and the optional channel', async () => {
    const { send, check } = await channelSetup(vigil, {
      type: 'SLACK',
      config: { name: 'slack', url: `${chat.url}/services/T000/B000/${'x'.repeat(8)}`, channel: '#alerts' },
    });
    const mine = () => chat.received.filter((r) => r.url.startsWith('/services/') && r.body.includes(check.id));
    await failThenRecover(send, () => mine().length);
    const [failure, recovery] = mine();
    expect(failure!.method).toBe('POST');
    expect(failure!.headers['content-type']).toBe('application/json');
    const body = json(failure!.body);
    expect(body.text).toBe('Check "Checkout API" is failing: Checkout API failed in eu-west-1.');
    expect(body.channel).toBe('#alerts');
    expect(body.blocks.map((b: { type: string }) => b.type)).toEqual(['header', 'section', 'section', 'actions']);
    expect(body.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Check "Checkout API" is failing', emoji: true },
    });
    expect(body.blocks[1].text).toEqual({
      type: 'mrkdwn',
      text: 'Checkout API failed in eu-west-1.\n&gt;expected 200, got 503',
    });
    expect(body.blocks[2].fields).toContainEqual({ type: 'mrkdwn', text: '*Location*\neu-west-1' });
    expect(body.blocks[3].elements[0]).toMatchObject({
      type: 'button',
      url: expect.stringContaining(`/checks/${check.id}/`),
    });
    expect(json(recovery!.body).text).toMatch(/has recovered/);
  }, 60_000);

  it('MSTEAMS: a Workflows message carrying an Adaptive Card', async () => {
    const { send, check } = await channelSetup(vigil, {
      type: 'MSTEAMS',
      config: { name: 'teams', url: `${chat.url}/workflows/abc` },
    });
    const mine = () => chat.received.filter((r) => r.url === '/workflows/abc' && r.body.includes(check.id));
    await failThenRecover(send, () => mine().length);
    const body = json(mine()[0]!.body);
    expect(body.type).toBe('message');
    expect(body.attachments).toHaveLength(1);
    expect(body.attachments[0]).toMatchObject({
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
    });
    const card = body.attachments[0].content;
    expect(card).toMatchObject({
      type: 'AdaptiveCard',
      version: '1.4',
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    });
    expect(card.body[0]).toMatchObject({
      type: 'TextBlock',
      text: 'Check "Checkout API" is failing',
      color: 'attention',
    });
    expect(card.body[2].type).toBe('FactSet');
    expect(card.body[2].facts).toContainEqual({ title: 'Error', value: 'expected 200, got 503' });
    expect(card.actions[0]).toMatchObject({ type: 'Action.OpenUrl', title: 'View result' });
    expect(json(mine()[1]!.body).attachments[0].content.body[0].color).toBe('good');
  }, 60_000);

  it('DISCORD: content plus an embed', async () => {
    const { send, check } = await channelSetup(vigil, {
      type: 'DISCORD',
      config: { name: 'd', url: `${chat.url}/api/webhooks/1/tok` },
    });
    const mine = () => chat.received.filter((r) => r.url === '/api/webhooks/1/tok' && r.body.includes(check.id));
    await failThenRecover(send, () => mine().length);
    const body = json(mine()[0]!.body);
    expect(body.content).toBe('Check "Checkout API" is failing');
    expect(body.embeds[0]).toMatchObject({
      title: 'Check "Checkout API" is failing',
      description: 'Checkout API failed in eu-west-1.',
      color: 0xd93f3f,
      timestamp: at(1),
    });
    expect(body.embeds[0].fields).toContainEqual({ name: 'Error', value: 'expected 200, got 503', inline: false });
    expect(body.allowed_mentions).toEqual({ parse: [] });
  }, 60_000);

  it('TELEGRAM: sendMessage with parse_mode=HTML; the bot token is sealed and masked when shown', async () => {
    const { send, channel, account } = await channelSetup(vigil, {
      type: 'TELEGRAM',
      config: { name: 'tg', botToken, chatId: '-100123' },
    });
    expect(channel.config).toEqual({ name: 'tg', chatId: '-100123', botToken: '********' });
    const mine = () =>
      chat.received.filter((r) => r.url === `/bot${botToken}/sendMessage` && r.body.includes('-100123'));
    const before = mine().length;
    await failThenRecover(send, () => mine().length - before);
    const body = json(mine()[before]!.body);
    expect(body).toMatchObject({ chat_id: '-100123', parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
    expect(body.text).toMatch(/^<b>Check &quot;Checkout API&quot; is failing<\/b>\n/);
    expect(body.text).toContain('<b>Error:</b> expected 200, got 503');
    const test = await account.owner.post(`/v1/alert-channels/${channel.id}/test`);
    expect(test.body.outcome).toBe('delivered');
    expect(test.body.request.url).toBe(`${chat.url}/bot********/sendMessage`);
    expect(JSON.stringify(test.body)).not.toContain(botToken);
  }, 60_000);

  it('refuses impossible values on save with a 400 naming the field, and documents a union by type', async () => {
    const { owner } = (await channelSetup(vigil, { type: 'EMAIL', config: { name: 'm', address: 'a@example.com' } }))
      .account;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'EMAIL', config: { name: 'm', address: 'oncall@' } }, /^config\.address: must be an email address/],
      [{ type: 'PAGERDUTY', config: { name: 'p', serviceKey: 'abc' } }, /^config\.serviceKey: must be a 32-character/],
      [{ type: 'PAGERDUTY', config: { name: 'p' } }, /^config\.serviceKey: required/],
      [{ type: 'OPSGENIE', config: { name: 'o', apiKey: 'nope' } }, /^config\.apiKey: must be an Opsgenie API key/],
      [{ type: 'SLACK', config: { name: 's', url: 'not a url' } }, /^config\.url: must be an https URL/],
      [{ type: 'TELEGRAM', config: { name: 't', botToken, chatId: 'x' } }, /^config\.chatId: /],
    ];
    for (const [body, message] of cases) {
      const response = await owner.post('/v1/alert-channels', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message).toMatch(message);
    }
    const doc = (await vigil.as(null).get('/openapi.json')).body as any;
    const channel = doc.components.schemas.AlertChannel;
    expect(channel.oneOf.map((v: any) => v.properties.type.const)).toEqual([
      'WEBHOOK',
      'EMAIL',
      'SLACK',
      'PAGERDUTY',
      'OPSGENIE',
      'MSTEAMS',
      'DISCORD',
      'TELEGRAM',
    ]);
    expect(channel.discriminator).toEqual({ propertyName: 'type' });
    const input = doc.paths['/v1/alert-channels'].post.requestBody.content['application/json'].schema;
    expect(input.oneOf).toHaveLength(8);
    expect(input.discriminator).toEqual({ propertyName: 'type' });
  }, 60_000);
});
