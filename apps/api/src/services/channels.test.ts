import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '#core';
import type { AlertChannelView, ReadModels } from '#readmodels';
import type { CommandRunner } from '../commands.ts';
import { ChannelService, checkChannel } from './channels.ts';

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

describe('hosted services require https', () => {
  const slack = { type: 'SLACK' as const, config: { name: 's', url: 'http://hooks.example.com/services/x' } };

  it('refuses plain http for SLACK, MSTEAMS and DISCORD unless private targets are allowed', async () => {
    for (const type of ['SLACK', 'MSTEAMS', 'DISCORD'] as const)
      await expect(checkChannel({ ...slack, type }, { allowPrivate: false })).rejects.toThrow(
        new RegExp(`^config\\.url: ${type} requires an https URL`),
      );
    await expect(checkChannel(slack, { allowPrivate: true })).resolves.toBeUndefined();
    await expect(
      checkChannel({ ...slack, config: { ...slack.config, url: 'https://hooks.slack.com/services/x' } }, {}),
    ).resolves.toBeUndefined();
  });

  it('masks the sealed secret of every type that has one, and names email without a relay as a problem', () => {
    const box = createSecretBox(randomBytes(32));
    const service = new ChannelService({} as CommandRunner, {} as ReadModels, box, { emailConfigured: false });
    const view = (channel: Record<string, unknown>) =>
      ({
        channel: { id: 'c', accountId: 'a', ...channel },
        subscriptions: [],
        createdAt: '',
        updatedAt: '',
      }) as unknown as AlertChannelView;
    const pd = service.present(
      view({
        type: 'PAGERDUTY',
        config: { name: 'p', serviceName: null, serviceKeyEncrypted: box.encrypt('k'.repeat(32)) },
      }),
    );
    expect(pd.config).toEqual({ name: 'p', serviceName: null, serviceKey: '********' });
    expect(pd.problems).toEqual([]);
    const og = service.present(view({ type: 'OPSGENIE', config: { name: 'o', apiKeyEncrypted: 'not sealed' } }));
    expect(og.problems).toEqual([expect.stringMatching(/^config\.apiKey: the stored secret cannot be decrypted/)]);
    const email = service.present(view({ type: 'EMAIL', config: { name: 'e', address: 'a@example.com' } }));
    expect(email.problems).toEqual([
      expect.stringMatching(/email is not configured on this server \(VIGIL_SMTP_URL\)/),
    ]);
  });
});
