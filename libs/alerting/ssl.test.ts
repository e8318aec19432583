import { describe, expect, it } from 'vitest';
import { SSL_OBSERVATION_MAX_DAYS } from './ssl.ts';
import { active, emitted, fail, given, muted, pass, replay, runBased } from './testing.ts';

const scenario = { settings: runBased(1) };
const HOUR = 60;
const DAY = 24 * HOUR;
const withSsl = (minute: number, daysRemaining: number, domain = 'example.com') =>
  pass(minute, { ssl: { daysRemaining, domain } });

describe('SSL observations', () => {
  it('given a certificate within 30 days, when a result reports it, then one ALERT_SSL observation carries daysRemaining and domain', () => {
    const { alerts } = given(scenario).when(withSsl(0, 12, 'shop.example.com'));

    expect(alerts).toEqual([
      expect.objectContaining({
        alertType: 'ALERT_SSL',
        isReminder: false,
        reminderSequence: 0,
        ssl: { daysRemaining: 12, domain: 'shop.example.com' },
      }),
    ]);
  });

  it('given an observation today, when another result reports the certificate the same UTC day, then nothing more', () => {
    expect(replay(scenario, [withSsl(0, 12), withSsl(HOUR, 12), withSsl(13 * HOUR, 11)])).toEqual([
      ['ALERT_SSL(12)'],
      [],
      [],
    ]);
  });

  it('given an observation today, when a result reports it the next UTC day, then another observation', () => {
    expect(emitted(scenario, [withSsl(0, 12), withSsl(DAY, 11), withSsl(2 * DAY, 10)])).toEqual([
      'ALERT_SSL(12)',
      'ALERT_SSL(11)',
      'ALERT_SSL(10)',
    ]);
  });

  it('given a result at 23:59 UTC, when the next comes at 00:01 UTC, then the day changed: two observations', () => {
    // T0 is 10:00 UTC, so 13h59 later is 23:59.
    const steps = [withSsl(13 * HOUR + 59, 5), withSsl(14 * HOUR + 1, 5)];

    expect(replay(scenario, steps)).toEqual([['ALERT_SSL(5)'], ['ALERT_SSL(5)']]);
  });

  it(`given a certificate with more than ${SSL_OBSERVATION_MAX_DAYS} days left, when reported, then no channel could care: no observation, and the day is not used up`, () => {
    const steps = [withSsl(0, SSL_OBSERVATION_MAX_DAYS + 1), withSsl(HOUR, SSL_OBSERVATION_MAX_DAYS)];

    expect(replay(scenario, steps)).toEqual([[], [`ALERT_SSL(${SSL_OBSERVATION_MAX_DAYS})`]]);
  });

  it('given an expired certificate, when reported, then it is observed with negative days', () => {
    expect(emitted(scenario, [withSsl(0, -3)])).toEqual(['ALERT_SSL(-3)']);
  });

  it('given a result without ssl, when applied, then no observation', () => {
    expect(emitted(scenario, [pass(0), fail(1)])).toEqual(['ALERT_FAILURE']);
  });

  it('given a failing result carrying a certificate, when applied, then the failure alert comes first, then the observation', () => {
    const { labels } = given(scenario).when(fail(0, { ssl: { daysRemaining: 7, domain: 'example.com' } }));

    expect(labels).toEqual(['ALERT_FAILURE', 'ALERT_SSL(7)']);
  });

  it('given an observation decision, when compared with the result, then it names the result and is not a state alert', () => {
    const result = withSsl(0, 9);

    const [decision] = given(scenario).when(result).alerts;

    expect(decision).toMatchObject({ resultId: result.id, startedAt: result.startedAt });
  });

  it('given a muted check, when a certificate is reported, then nothing; when unmuted the same day, then it is observed', () => {
    const steps = [
      { result: withSsl(0, 8), check: muted },
      { result: withSsl(HOUR, 8), check: active },
    ];

    expect(replay(scenario, steps)).toEqual([[], ['ALERT_SSL(8)']]);
  });

  it('given an observation, when the same result is delivered again, then no second observation', () => {
    const result = withSsl(0, 4);

    expect(replay(scenario, [result, result])).toEqual([['ALERT_SSL(4)'], []]);
  });
});
