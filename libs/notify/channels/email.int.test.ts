import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/alerting/smtp-receiver.ts';
import { sendEmail } from './email.ts';
import { emailMessage } from './email-message.ts';
import { alertSummary } from './summary.ts';

const password = 'p@ss word/with:chars';
let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver({ user: 'vigil', password });
});
afterAll(async () => smtp?.close());

const summary = alertSummary(
  {
    CHECK_NAME: 'Checkout <API>',
    CHECK_ID: 'c-1',
    CHECK_TYPE: 'API',
    ALERT_TITLE: 'Check "Checkout <API>" is failing',
    ALERT_TYPE: 'ALERT_FAILURE',
    CHECK_RESULT_ID: 'r-1',
    CHECK_ERROR_MESSAGE: 'expected 200, got 503',
    RESPONSE_TIME: 812,
    API_CHECK_RESPONSE_STATUS_CODE: 503,
    API_CHECK_RESPONSE_STATUS_TEXT: 'Service Unavailable',
    RUN_LOCATION: 'eu-west-1',
    RESULT_LINK: 'http://vigil.test/v1/check-results/c-1/r-1',
    SSL_DAYS_REMAINING: null,
    SSL_CHECK_DOMAIN: null,
    STARTED_AT: '2026-11-25T10:00:00.000Z',
    TAGS: ['prod'],
    GROUP_NAME: null,
    IS_REMINDER: false,
    REMINDER_SEQUENCE: 0,
  },
  'http://vigil.test',
);
const url = () => `smtp://vigil:${encodeURIComponent(password)}@127.0.0.1:${smtp.port}`;
const options = (overrides: Partial<Parameters<typeof sendEmail>[1]> = {}) => ({
  smtpUrl: url(),
  from: 'Vigil <alerts@vigil.test>',
  allowPrivate: true,
  timeoutMs: 5000,
  deliveryId: '6a1f0c4e-1111-4222-8333-444455556666',
  ...overrides,
});

describe('email through a real SMTP server', () => {
  it('sends the alert as HTML and plain text, authenticated, with a stable Message-ID', async () => {
    const before = smtp.mails.length;
    const result = await sendEmail(emailMessage('oncall@example.com', summary), options());
    expect(result).toMatchObject({ outcome: 'delivered', statusCode: 250 });
    const mail = smtp.mails[before]!;
    expect(mail.user).toBe('vigil');
    expect(mail.to).toEqual(['oncall@example.com']);
    expect(mail.from).toBe('alerts@vigil.test');
    const parsed = mail.parsed;
    expect(parsed.subject).toBe('Check "Checkout <API>" is failing');
    expect(parsed.messageId).toBe('<6a1f0c4e-1111-4222-8333-444455556666@vigil.alerts>');
    expect(parsed.headers.get('x-vigil-delivery')).toBe('6a1f0c4e-1111-4222-8333-444455556666');
    expect(parsed.text).toContain('Checkout <API> failed in eu-west-1.');
    expect(parsed.text).toContain('Error: expected 200, got 503');
    expect(parsed.text).toContain('When: 2026-11-25T10:00:00.000Z');
    expect(parsed.text).toContain('View result: http://vigil.test/checks/c-1/results/r-1');
    // The HTML part is escaped: the check name's markup is text.
    expect(parsed.html).toContain('Checkout &lt;API&gt; failed in eu-west-1.');
    expect(parsed.html).toContain('href="http://vigil.test/checks/c-1/results/r-1"');
    expect(parsed.html).not.toContain('<API>');
    expect(mail.raw).not.toContain(password);
  });

  it('refuses a relay on a private address unless private targets are allowed, before connecting', async () => {
    const before = smtp.mails.length;
    const result = await sendEmail(emailMessage('oncall@example.com', summary), options({ allowPrivate: false }));
    expect(result.outcome).toBe('refused');
    expect(result.error).toMatch(
      /SMTP host 127\.0\.0\.1 resolves to a blocked address: .*loopback.*VIGIL_ALLOW_PRIVATE_TARGETS/,
    );
    const named = await sendEmail(
      emailMessage('oncall@example.com', summary),
      options({ allowPrivate: false, smtpUrl: `smtp://localhost:${smtp.port}` }),
    );
    expect(named.outcome).toBe('refused');
    expect(smtp.mails.length).toBe(before);
  });

  it('says why when the relay refuses the login (permanent) or is not configured, never echoing the password', async () => {
    const wrong = await sendEmail(
      emailMessage('oncall@example.com', summary),
      options({ smtpUrl: `smtp://vigil:wrong-${encodeURIComponent(password)}@127.0.0.1:${smtp.port}` }),
    );
    expect(wrong.outcome).toBe('refused');
    expect(wrong.statusCode).toBe(535);
    expect(wrong.error).not.toContain(password);
    const none = await sendEmail(emailMessage('oncall@example.com', summary), options({ smtpUrl: null }));
    expect(none).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/VIGIL_SMTP_URL/) });
  });

  it('fails (to be retried) when nothing listens', async () => {
    const result = await sendEmail(
      emailMessage('oncall@example.com', summary),
      options({ smtpUrl: 'smtp://127.0.0.1:1' }),
    );
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});
