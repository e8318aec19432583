import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '#core';
import type { AlertChannelView, ReadModels } from '#readmodels';
import type { CommandRunner } from '../commands.ts';
import { ChannelService } from './channels.ts';

// A channel saved before secrets were checked on save keeps an unusable secret: it shows as an
// error state instead of silently losing every alert.
describe('alert channel error state', () => {
  const box = createSecretBox(randomBytes(32));
  const service = new ChannelService({} as CommandRunner, {} as ReadModels, box);
  const view = (secret: string | null) =>
    ({
      channel: {
        id: '00000000-0000-4000-8000-000000000001',
        accountId: 'acc-1',
        type: 'WEBHOOK',
        config: {
          name: 'ops',
          url: 'https://example.com/hook',
          method: 'POST',
          headers: [],
          queryParameters: [],
          template: null,
          webhookSecretEncrypted: secret === null ? null : box.encrypt(secret),
        },
        sendFailure: true,
        sendRecovery: true,
        sendDegraded: false,
        sslExpiry: false,
        sslExpiryThreshold: 30,
      },
      subscriptions: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    }) as unknown as AlertChannelView;

  it('names a stored whsec_ secret that the sender cannot use', () => {
    const json = service.present(view('whsec_not-base64!'));
    expect(json.problems).toEqual([expect.stringMatching(/^config\.webhookSecret: .*base64.*replaced$/)]);
    expect((json.config as Record<string, unknown>).webhookSecret).toBe('********');
  });

  it('has no problems for a good secret, none for no secret, and names a refused last delivery', () => {
    expect(service.present(view('whsec_c2VjcmV0')).problems).toEqual([]);
    expect(service.present(view(null)).problems).toEqual([]);
    const refused = { outcome: 'refused', error: 'refused: blocked address', at: '2026-01-01T00:00:00.000Z' };
    expect(service.present(view(null), refused).problems).toEqual([
      'the last delivery (2026-01-01T00:00:00.000Z) was refused: refused: blocked address',
    ]);
    expect(service.present(view(null), { ...refused, outcome: 'delivered' }).problems).toEqual([]);
  });
});
