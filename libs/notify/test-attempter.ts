import { createLogger, createSecretBox } from '#core';
import type { ReadModels } from '#readmodels';
import { DEFAULT_RETRY_POLICY } from '#webhooks';
import { Attempter } from './attempt.ts';
import type { AlertEvent } from '#alerting';
import { DEFAULT_CHANNEL_ENDPOINTS } from './config.ts';
import { deliveryIdFor } from './delivery-id.ts';
import type { Delivery, DeliveryStore } from './store.ts';

/** An Attempter as the dispatcher makes one, for tests: private receivers allowed, nothing logged. */
export function testAttempter(readModels: ReadModels, store: DeliveryStore, timeoutMs = 5000): Attempter {
  return new Attempter({
    readModels,
    store,
    box: createSecretBox(Buffer.alloc(32, 1)),
    log: createLogger({ level: 'silent' }),
    timeoutMs,
    retry: DEFAULT_RETRY_POLICY,
    allowPrivate: true,
    userAgent: 'Vigil/test',
    publicUrl: 'http://localhost:3000',
    region: 'local',
    endpoints: DEFAULT_CHANNEL_ENDPOINTS,
    onScheduled: () => undefined,
  });
}

/** A pending delivery of `alert` to a channel, as the dispatcher builds one; `fields` override. */
export function testDelivery(alert: AlertEvent, channelId: string, fields: Partial<Delivery> = {}): Delivery {
  return {
    id: deliveryIdFor(alert, channelId),
    channelId,
    accountId: alert.accountId,
    checkId: alert.checkId,
    alertType: alert.alertType,
    alert,
    test: false,
    attempts: 0,
    status: 'pending',
    nextAttemptAt: null,
    createdAt: 0,
    updatedAt: 0,
    lastError: null,
    ...fields,
  };
}
