import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bounded, BrowserCallTimeout } from './browser-bound.ts';

describe('bounded browser calls', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  const never = () => new Promise<never>(() => {});
  const later = (ms: number, fail: boolean) =>
    new Promise<string>((resolve, reject) =>
      setTimeout(() => (fail ? reject(new Error('late failure')) : resolve('late')), ms),
    );
  const settle = () => new Promise((resolve) => setTimeout(resolve, 80));

  it('settles like the call when it answers in time', async () => {
    await expect(bounded(Promise.resolve(7), 'x', new AbortController().signal, 1000)).resolves.toBe(7);
    await expect(bounded(Promise.reject(new Error('no')), 'x', undefined, 1000)).rejects.toThrow('no');
  });

  it('rejects with the abort reason at once, also when already aborted', async () => {
    const controller = new AbortController();
    const pending = bounded(never(), 'browser newPage', controller.signal);
    controller.abort(new Error('run aborted'));
    await expect(pending).rejects.toThrow('run aborted');
    await expect(bounded(never(), 'x', controller.signal)).rejects.toThrow('run aborted');
  });

  it('rejects with a BrowserCallTimeout naming the call after its own limit', async () => {
    const error = await bounded(never(), 'browser context close', undefined, 20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrowserCallTimeout);
    expect(String(error)).toContain('browser context close gave no answer within 20 ms');
  });

  it('leaves no unhandled rejection when the call fails after the race was lost', async () => {
    const controller = new AbortController();
    const pending = bounded(later(30, true), 'x', controller.signal);
    controller.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    await expect(bounded(later(30, true), 'x', undefined, 5)).rejects.toBeInstanceOf(BrowserCallTimeout);
    // Already aborted: the call is never raced, and its failure must still be observed.
    await expect(bounded(later(30, true), 'x', controller.signal)).rejects.toThrow('gone');
    await settle();
    expect(unhandled).toEqual([]);
  });

  it('removes its abort listener once settled, so a long-lived signal collects none', async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added += 1;
      add(...args);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed += 1;
      remove(...args);
    }) as typeof signal.removeEventListener;
    for (let i = 0; i < 20; i++) await bounded(later(1, false), 'x', signal, 1000);
    expect(added).toBe(20);
    expect(removed).toBe(20);
  });
});
