import { sleep, type Logger } from '#core';
import { backoffMs, type ResolvedConsumeOptions } from './common.ts';
import type { ConsumedMessage } from './port.ts';

export interface DeliveryHooks {
  /** Aborts when the consumer stops. */
  signal: AbortSignal;
  /** False once the partition was taken away (rebalance): the new owner redelivers from the last commit. */
  stillOwned: () => boolean;
  /** Called at least every keepAliveMs while backing off (Kafka heartbeats); may throw to abandon the batch. */
  keepAlive?: () => Promise<void>;
  keepAliveMs?: number;
}

/**
 * Runs the handler on one batch until it succeeds (true), or until the consumer stops or loses
 * the partition (false, nothing may be committed). Failures back off exponentially; there is
 * no attempt limit, by design: skipping would lose data, and crashing would loop.
 */
export async function deliver(
  batch: ConsumedMessage[],
  options: ResolvedConsumeOptions,
  hooks: DeliveryHooks,
  log: Logger,
): Promise<boolean> {
  const first = batch[0];
  const last = batch[batch.length - 1];
  for (let attempt = 1; ; attempt++) {
    if (hooks.signal.aborted || !hooks.stillOwned()) return false;
    try {
      await options.handler(batch, { signal: hooks.signal, attempt });
      return true;
    } catch (error) {
      const delay = backoffMs(attempt, options.retry);
      log.warn(
        {
          err: error,
          groupId: options.groupId,
          topic: first?.topic,
          partition: first?.partition,
          fromOffset: first?.offset,
          toOffset: last?.offset,
          attempt,
          retryInMs: delay,
        },
        'handler failed; the batch will be delivered again',
      );
      try {
        options.onError?.(error, attempt);
      } catch (callbackError) {
        log.warn({ err: callbackError }, 'onError callback threw');
      }
      await backOff(delay, hooks);
    }
  }
}

async function backOff(delayMs: number, hooks: DeliveryHooks): Promise<void> {
  const until = Date.now() + delayMs;
  const slice = hooks.keepAliveMs ?? delayMs;
  while (!hooks.signal.aborted && hooks.stillOwned()) {
    const remaining = until - Date.now();
    if (remaining <= 0) return;
    await sleep(Math.min(slice, remaining), hooks.signal);
    if (hooks.keepAlive && !hooks.signal.aborted) await hooks.keepAlive();
  }
}
