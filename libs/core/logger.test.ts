import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { redactPaths } from './logger.ts';

describe('log redaction', () => {
  it('blanks authorization headers, keys and secrets wherever they appear', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const log = pino({ redact: { paths: redactPaths, censor: '[redacted]' } }, sink);
    log.info(
      {
        req: { headers: { authorization: 'Bearer vgl_secret1' } },
        apiKey: 'vgl_secret2',
        config: { webhookSecret: 'whsec_secret3' },
        secret: 'plain-secret4',
        ok: 'kept',
      },
      'hello',
    );
    const line = lines.join('');
    for (const leaked of ['vgl_secret1', 'vgl_secret2', 'whsec_secret3', 'plain-secret4'])
      expect(line).not.toContain(leaked);
    expect(line).toContain('kept');
  });
});
