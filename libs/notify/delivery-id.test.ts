import { describe, expect, it } from 'vitest';
import type { AlertEvent, LocationAlert } from '#alerting';
import { deliveryIdFor, legacyDeliveryId } from './delivery-id.ts';
import { deterministicId } from './ids.ts';
import { sampleAlert, syntheticContext } from './samples.ts';

const timeOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('delivery ids', () => {
  const alert = sampleAlert('00000000-0000-4000-8000-00000000000a', syntheticContext());

  it("start with the result's start, whenever the alert was decided", () => {
    const id = deliveryIdFor(alert, 'channel-1');
    expect(timeOf(id)).toBe(Date.parse(alert.startedAt));
    // A replayed alerter decides the same alert later: same alert id and result, same delivery.
    const later: AlertEvent = { ...alert, occurredAt: '2030-01-01T00:00:00.000Z' };
    expect(deliveryIdFor(later, 'channel-1')).toBe(id);
    expect(deliveryIdFor(alert, 'channel-2')).not.toBe(id);
  });

  it("start with a location outage's last poll", () => {
    const outage: LocationAlert = {
      subject: 'LOCATION',
      alertId: '00000000-0000-4000-8000-0000000000b1',
      accountId: alert.accountId,
      locationId: '00000000-0000-4000-8000-0000000000c1',
      alertType: 'ALERT_LOCATION_UNAVAILABLE',
      lastSeenAt: '2026-11-29T08:00:00.000Z',
      startedAt: '2026-11-29T08:05:00.000Z',
      occurredAt: '2026-11-29T08:05:01.000Z',
    };
    expect(timeOf(deliveryIdFor(outage, 'channel-1'))).toBe(Date.parse(outage.lastSeenAt));
  });

  it('name the id the same delivery had before, for ordered ids only', () => {
    const delivery = { id: deliveryIdFor(alert, 'channel-1'), channelId: 'channel-1', alert };
    expect(legacyDeliveryId(delivery)).toBe(deterministicId(alert.alertId, 'channel-1'));
    expect(legacyDeliveryId({ ...delivery, id: deterministicId(alert.alertId, 'channel-1') })).toBeNull();
  });
});
