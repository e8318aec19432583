import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { checkAddress, metadataRange, type DeliveryResult } from '#webhooks';
import type { EmailMessage } from './email-message.ts';

export interface EmailOptions {
  smtpUrl: string | null;
  from: string;
  allowPrivate: boolean;
  timeoutMs: number;
  /** The same on every retry: it makes the Message-ID, so receivers can de-duplicate. */
  deliveryId: string;
}

const PRIVATE_HINT = '; set VIGIL_ALLOW_PRIVATE_TARGETS=true to deliver to private addresses';

/**
 * Where to connect: the relay's name resolved now and every address vetted by the same policy as
 * webhooks, then the connection made to that address (the name kept for TLS), so a name that
 * re-resolves elsewhere between the check and the connect cannot slip past it.
 */
async function vettedAddress(host: string, allowPrivate: boolean): Promise<{ address: string } | { refusal: string }> {
  const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
  if (addresses.length === 0) return { refusal: `${host} has no address` };
  for (const { address } of addresses) {
    const metadata = metadataRange(address);
    if (metadata)
      return { refusal: `the SMTP host ${host} resolves to ${address}, a cloud metadata address (${metadata})` };
    if (allowPrivate) continue;
    const verdict = checkAddress(address);
    if (!verdict.allowed)
      return { refusal: `the SMTP host ${host} resolves to a blocked address: ${verdict.reason}${PRIVATE_HINT}` };
  }
  return { address: addresses[0]!.address };
}

/** Sends one alert email through the configured relay. Never throws: every way it ends is a result. */
export async function sendEmail(message: EmailMessage, options: EmailOptions): Promise<DeliveryResult> {
  const started = performance.now();
  const result = (outcome: DeliveryResult['outcome'], error?: string, statusCode?: number): DeliveryResult => ({
    outcome,
    ...(error === undefined ? {} : { error }),
    ...(statusCode === undefined ? {} : { statusCode }),
    durationMs: Math.round(performance.now() - started),
    responseBody: '',
    requestHeaders: {},
  });
  if (!options.smtpUrl) return result('refused', 'refused: email is not configured on this server (VIGIL_SMTP_URL)');
  const url = new URL(options.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let target: Awaited<ReturnType<typeof vettedAddress>>;
  try {
    target = await vettedAddress(host, options.allowPrivate);
  } catch (error) {
    return result('failed', `could not resolve the SMTP host ${host}: ${(error as Error).message}`);
  }
  if ('refusal' in target) return result('refused', target.refusal);
  const transport = nodemailer.createTransport({
    host: target.address,
    port: url.port ? Number(url.port) : secure ? 465 : 25,
    secure,
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    // Certificates are checked against the relay's name, not the address connected to.
    tls: { servername: isIP(host) ? undefined : host },
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      messageId: `<${options.deliveryId}@vigil.alerts>`,
      headers: { 'X-Vigil-Delivery': options.deliveryId },
    });
    const code = Number(/^(\d{3})/.exec(info.response ?? '')?.[1] ?? 250);
    if (info.rejected.length > 0)
      return result('refused', `the SMTP server rejected ${message.to}: ${info.response}`, code);
    return result('delivered', undefined, code);
  } catch (error) {
    const { responseCode, message: text } = error as { responseCode?: number; message?: string };
    // A permanent (5xx) answer does not change on a retry; anything else (4xx, network) may.
    if (typeof responseCode === 'number' && responseCode >= 500)
      return result('refused', `the SMTP server answered ${responseCode}: ${text ?? ''}`.trim(), responseCode);
    return result('failed', text ?? String(error), responseCode);
  } finally {
    transport.close();
  }
}
