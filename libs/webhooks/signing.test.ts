import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { renderTemplates } from './render.ts';
import { signatureHeaders, standardWebhooksSignature, webhookSecretProblem } from './signing.ts';
import { alertEventVariablesSchema } from './variables.ts';

const published = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  deliveryId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
};

/** The spec's example receiver: re-serialise the parsed body, HMAC it, compare in constant time. */
function exampleVerifier(rawBody: string, signature: string, secret: string): number {
  const expected = createHmac('sha256', secret)
    .update(JSON.stringify(JSON.parse(rawBody)))
    .digest('hex');
  const ok = expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
  return ok ? 200 : 400;
}

describe('Standard Webhooks signature', () => {
  it('matches the published example', () => {
    expect(standardWebhooksSignature(published.secret, published.deliveryId, published.timestamp, published.body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    expect(signatureHeaders(published)).toMatchObject({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('is verified by the standardwebhooks library, and a changed body is not', () => {
    const body = '{"alert":"ALERT_FAILURE","msg":"ü \\"x\\""}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders({ body, secret: published.secret, deliveryId: 'del_123', timestamp });
    expect(new Webhook(published.secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(published.secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook('whsec_' + Buffer.from('another key').toString('base64')).verify(body, headers)).toThrow();
  });

  it('signs the same bytes a Buffer body would send', () => {
    const asBuffer = signatureHeaders({ ...published, body: Buffer.from(published.body) });
    expect(asBuffer).toEqual(signatureHeaders(published));
  });

  it('refuses a whsec_ secret that is not base64', () => {
    expect(() => signatureHeaders({ ...published, secret: 'whsec_not base64!' })).toThrow(ValidationError);
    expect(webhookSecretProblem('whsec_')).toMatch(/base64/);
    expect(webhookSecretProblem('whsec_abc$')).toMatch(/base64/);
    expect(webhookSecretProblem(published.secret)).toBeUndefined();
    expect(webhookSecretProblem('plain secret')).toBeUndefined();
    expect(webhookSecretProblem('')).toBe('must not be empty');
  });
});

describe('x-service-signature', () => {
  it('is the hex HMAC-SHA256 of the exact body, keyed with the whole secret', () => {
    const headers = signatureHeaders({ body: 'a body\n', secret: 's3cret', deliveryId: 'd', timestamp: 1 });
    expect(headers).toEqual({ 'x-service-signature': createHmac('sha256', 's3cret').update('a body\n').digest('hex') });
  });

  it('keys a whsec_ secret as the whole string, and adds the Standard Webhooks headers', () => {
    const headers = signatureHeaders(published);
    expect(headers['x-service-signature']).toBe(
      createHmac('sha256', published.secret).update(published.body).digest('hex'),
    );
    expect(Object.keys(headers).sort()).toEqual([
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-service-signature',
    ]);
  });

  it('is absent without a secret', () => {
    expect(signatureHeaders({ body: 'x', secret: undefined, deliveryId: 'd', timestamp: 1 })).toEqual({});
    expect(signatureHeaders({ body: 'x', secret: null, deliveryId: 'd', timestamp: 1 })).toEqual({});
    expect(signatureHeaders({ body: 'x', secret: '', deliveryId: 'd', timestamp: 1 })).toEqual({});
  });

  it('the spec’s example verifier accepts our canonical body, and would reject a non-canonical one', () => {
    const event = alertEventVariablesSchema.parse({
      CHECK_NAME: 'Checkout "API"',
      CHECK_ID: 'c',
      CHECK_TYPE: 'API',
      ALERT_TITLE: 't',
      ALERT_TYPE: 'ALERT_FAILURE',
    });
    const template = '{\n  "check" : "{{CHECK_NAME}}",\n  "n": 1.50\n}';
    const { body } = renderTemplates({ url: 'https://x.io', template }, { event });
    const secret = 'my-secret';
    const signature = signatureHeaders({ body, secret, deliveryId: 'd', timestamp: 1 })['x-service-signature'] ?? '';
    expect(exampleVerifier(body, signature, secret)).toBe(200);

    // What signing the template's text as written would have given: the verifier refuses it.
    const asWritten = '{\n  "check" : "Checkout \\"API\\"",\n  "n": 1.50\n}';
    const rawSignature =
      signatureHeaders({ body: asWritten, secret, deliveryId: 'd', timestamp: 1 })['x-service-signature'] ?? '';
    expect(exampleVerifier(asWritten, rawSignature, secret)).toBe(400);
    expect(exampleVerifier(body, 'f'.repeat(64), secret)).toBe(400);
  });
});
