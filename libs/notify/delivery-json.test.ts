import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sampleAlert, syntheticContext } from './samples.ts';
import { deliveryJson, deliverySchema, type Delivery } from './store.ts';

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
    }
  });
});
