import { describe, expect, it } from 'vitest';
import { checksMayReachPrivate, deliveriesMayReachPrivate } from '#platform';
import { loadStandaloneConfig } from './config.ts';
import { startBanner } from './local-secrets.ts';

describe('the private-targets switch', () => {
  const config = (env: Record<string, string>) => loadStandaloneConfig({ DATA_DIR: '/tmp/x', ...env });

  it('one switch covers checks, scripts and deliveries; the two older names still work for their part', () => {
    const one = config({ VIGIL_ALLOW_PRIVATE_TARGETS: 'true' });
    expect([checksMayReachPrivate(one), deliveriesMayReachPrivate(one)]).toEqual([true, true]);
    const runner = config({ VIGIL_RUNNER_ALLOW_PRIVATE: 'true' });
    expect([checksMayReachPrivate(runner), deliveriesMayReachPrivate(runner)]).toEqual([true, false]);
    const webhook = config({ VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect([checksMayReachPrivate(webhook), deliveriesMayReachPrivate(webhook)]).toEqual([false, true]);
    const none = config({});
    expect([checksMayReachPrivate(none), deliveriesMayReachPrivate(none)]).toEqual([false, false]);
  });

  it('a bad value stops start-up naming the variable', () => {
    expect(() => config({ VIGIL_ALLOW_PRIVATE_TARGETS: 'yes please' })).toThrow(/VIGIL_ALLOW_PRIVATE_TARGETS/);
  });

  it('the start-up banner names the switch while it is off, and not once it is on', () => {
    expect(startBanner('http://127.0.0.1:3000', undefined, false)).toContain(
      'VIGIL_ALLOW_PRIVATE_TARGETS=true npm start',
    );
    expect(startBanner('http://127.0.0.1:3000', undefined, true)).not.toContain('VIGIL_ALLOW_PRIVATE_TARGETS');
  });

  it('gives a CLI command that works from any directory, never `npx vigil`', () => {
    const text = startBanner('http://127.0.0.1:3000', 'vk_admin_x', true, '/opt/vigil/apps/cli/bin/vigil.js');
    expect(text).toContain("alias vigil='node /opt/vigil/apps/cli/bin/vigil.js'");
    expect(text).toContain('npm link');
    expect(text).not.toContain('npx vigil');
  });
});
