import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleAlert, syntheticContext } from './samples.ts';
import { createSqliteStateStore } from '#statestore';
import {
  deliveryJson,
  deliveryParts,
  deliverySchema,
  DeliveryStore,
  readDelivery,
  type Attempt,
  type Delivery,
} from './store.ts';

// Differential: the stored delivery built with the alert's cached JSON is the same document as
// JSON.stringify(delivery), for deliveries of one alert to several channels and after changes.
describe('deliveryJson', () => {
  it('is the same document as JSON.stringify, per delivery, with a shared alert', () => {
    const account = randomUUID();
    const context = syntheticContext();
    const alerts = (['ALERT_FAILURE', 'ALERT_RECOVERY', 'ALERT_SSL'] as const).map((type) =>
      sampleAlert(account, context, type),
    );
    const deliveries: Delivery[] = [];
    for (const alert of alerts)
      for (let channel = 0; channel < 4; channel++)
        deliveries.push({
          id: `d-${alert.alertId}-${channel}`,
          channelId: `c-${channel}`,
          accountId: account,
          checkId: alert.checkId,
          alertType: alert.alertType,
          alert,
          test: channel === 3,
          attempts: channel,
          status: channel === 1 ? 'pending' : 'delivered',
          nextAttemptAt: channel === 1 ? 123 : null,
          createdAt: 1,
          updatedAt: 2,
          lastError: channel === 2 ? 'receiver answered 500 "quoted"' : null,
        });
    // Interleaved, and each twice: the second reads the cached alert.
    for (const delivery of [...deliveries, ...deliveries.reverse()]) {
      const fast = deliveryJson(delivery);
      expect(JSON.parse(fast)).toEqual(JSON.parse(JSON.stringify(delivery)));
      expect(deliverySchema.parse(JSON.parse(fast))).toEqual(
        deliverySchema.parse(JSON.parse(JSON.stringify(delivery))),
      );
      // Read back and written again, the text is the same; every field of the schema is in it.
      expect(deliveryJson(readDelivery(fast))).toBe(fast);
      expect(Object.keys(JSON.parse(fast) as object).sort()).toEqual(Object.keys(deliverySchema.shape).sort());
      // The two parts a record is written in join to the same text; an alert's deliveries share the prefix.
      const parts = deliveryParts(delivery);
      expect(`${parts.prefix}${parts.value}`).toBe(fast);
      expect(parts.prefix).toBe(deliveryParts(deliveries.find((d) => d.alert === delivery.alert)!).prefix);
    }
  });

  it('is what recordAttempt stores, in memory and through the write thread', async () => {
    const alert = sampleAlert(randomUUID(), syntheticContext());
    const delivery: Delivery = {
      id: 'd-1',
      channelId: 'c-1',
      accountId: alert.accountId,
      checkId: alert.checkId,
      alertType: alert.alertType,
      alert,
      test: false,
      attempts: 1,
      status: 'delivered',
      nextAttemptAt: null,
      createdAt: 1,
      updatedAt: 2,
      lastError: null,
    };
    const attempt: Attempt = {
      deliveryId: 'd-1',
      channelId: 'c-1',
      checkId: alert.checkId,
      alertType: alert.alertType,
      attempt: 1,
      at: new Date(2).toISOString(),
      durationMs: 1,
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      responseBody: '',
      test: false,
      nextAttemptAt: null,
    };
    const dir = mkdtempSync(join(tmpdir(), 'vigil-delivery-json-'));
    try {
      for (const path of [':memory:', join(dir, 'state.sqlite')]) {
        const store = createSqliteStateStore({ path });
        const deliveries = new DeliveryStore(store);
        await deliveries.recordAttempt(delivery, attempt, 2, false, true);
        expect(await store.get('webhook:delivery:d-1')).toBe(deliveryJson(delivery));
        expect(await deliveries.get('d-1')).toEqual(delivery);
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
