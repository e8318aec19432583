import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LocationAlert } from '#alerting';
import { seeded } from '#test-support';
import { sampleAlert, syntheticContext } from './samples.ts';
import { deliveryJson, deliverySchema, readDelivery, type Delivery } from './store.ts';

// Differential: a stored delivery read without the schema pass is what the schema makes of it;
// records the fast path does not recognise (older ones, damaged ones) still go through the schema.
function deliveries(count: number): Delivery[] {
  const next = seeded(11);
  const account = randomUUID();
  const context = syntheticContext();
  const location: LocationAlert = {
    subject: 'LOCATION',
    alertId: randomUUID(),
    accountId: account,
    locationId: randomUUID(),
    alertType: 'ALERT_LOCATION_UNAVAILABLE',
    lastSeenAt: new Date(1_000).toISOString(),
    startedAt: new Date(2_000).toISOString(),
    occurredAt: new Date(3_000).toISOString(),
  };
  const types = ['ALERT_FAILURE', 'ALERT_RECOVERY', 'ALERT_SSL', 'ALERT_DEGRADED'] as const;
  return Array.from({ length: count }, (_, i) => {
    const alert = next() < 0.2 ? location : sampleAlert(account, context, types[i % types.length]);
    const status = (['pending', 'delivered', 'failed', 'refused'] as const)[Math.floor(next() * 4)]!;
    return {
      id: randomUUID(),
      channelId: randomUUID(),
      accountId: account,
      checkId: 'subject' in alert ? alert.locationId : alert.checkId,
      alertType: alert.alertType,
      alert,
      test: next() < 0.3,
      attempts: Math.floor(next() * 6),
      status,
      nextAttemptAt: status === 'pending' ? Math.floor(next() * 1e13) : null,
      createdAt: 1,
      updatedAt: Math.floor(next() * 1e13),
      lastError: next() < 0.5 ? null : 'receiver answered 500 "quoted" é',
    };
  });
}

describe('readDelivery', () => {
  it('reads what deliveryJson stored as the schema does', () => {
    for (const delivery of deliveries(300)) {
      const raw = deliveryJson(delivery);
      expect(readDelivery(raw)).toEqual(deliverySchema.parse(JSON.parse(raw)));
    }
  });

  it('gives older records the schema’s defaults, and refuses damaged ones as the schema does', () => {
    const [delivery] = deliveries(1);
    const { test: _test, lastError: _lastError, ...older } = delivery!;
    const read = readDelivery(JSON.stringify(older));
    expect(read.test).toBe(false);
    expect(read.lastError).toBeNull();
    expect(read).toEqual(deliverySchema.parse(older));

    expect(() => readDelivery(JSON.stringify({ ...delivery, attempts: 'two' }))).toThrow();
    expect(() => readDelivery(JSON.stringify({ ...delivery, status: 'lost' }))).toThrow();
    const { alertId: _alertId, ...alert } = delivery!.alert;
    expect(() => readDelivery(JSON.stringify({ ...delivery, alert }))).toThrow();
    expect(() => readDelivery('null')).toThrow();
  });
});
