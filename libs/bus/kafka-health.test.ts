import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger, UnavailableError } from '#core';
import { KafkaOutage, untilAcknowledged } from './kafka-health.ts';

const log = createLogger({ level: 'silent' });

describe('untilAcknowledged', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects with UnavailableError when nothing is acknowledged for the timeout', async () => {
    const never = new Promise<never>(() => undefined);
    const started = Date.now();
    const outcome = untilAcknowledged(never, () => started, 1_000).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void outcome.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    const error = await outcome;
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toMatch(/Kafka acknowledged nothing within 1000 ms/);
  });

  it('waits on while the producer keeps acknowledging other sends', async () => {
    let lastAck = Date.now();
    let resolveWork: (value: string) => void = () => undefined;
    const work = new Promise<string>((resolve) => (resolveWork = resolve));
    const outcome = untilAcknowledged(work, () => lastAck, 1_000);
    // Five seconds in all, but never a whole second without an acknowledgement.
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(500);
      lastAck = Date.now();
    }
    resolveWork('sent');
    await expect(outcome).resolves.toBe('sent');
  });

  it('passes the work’s own failure through', async () => {
    const outcome = untilAcknowledged(Promise.reject(new Error('boom')), () => 0, 1_000);
    await expect(outcome).rejects.toThrow('boom');
  });
});

describe('KafkaOutage', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails fast once reported, and ends when a probe succeeds', async () => {
    let reachable = false;
    const probe = vi.fn(async () => {
      if (!reachable) throw new Error('connect ECONNREFUSED 127.0.0.1:9092');
    });
    const outage = new KafkaOutage(probe, log, 500);
    expect(() => outage.check()).not.toThrow();
    outage.report('Kafka acknowledged nothing within 1000 ms');
    expect(() => outage.check()).toThrow(UnavailableError);
    expect(() => outage.check()).toThrow(/Kafka is unavailable \(since .*\): Kafka acknowledged nothing/);
    await vi.advanceTimersByTimeAsync(1_600);
    expect(probe).toHaveBeenCalledTimes(3);
    // The reason follows what the probe last saw.
    expect(() => outage.check()).toThrow(/ECONNREFUSED/);
    reachable = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(outage.isDown).toBe(false);
    expect(() => outage.check()).not.toThrow();
    // No probing while Kafka is up.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(probe).toHaveBeenCalledTimes(4);
    outage.stop();
  });

  it('stops probing when stopped', async () => {
    const probe = vi.fn(async () => Promise.reject(new Error('down')));
    const outage = new KafkaOutage(probe, log, 500);
    outage.report('down');
    outage.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(probe).not.toHaveBeenCalled();
  });
});
