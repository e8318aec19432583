import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce.ts';

/** A work function whose runs the test finishes by hand, recording what each run got. */
function gatedWork() {
  const runs: { items: number[]; finish: (error?: Error) => void }[] = [];
  let active = 0;
  let most = 0;
  const work = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      active += 1;
      most = Math.max(most, active);
      runs.push({
        items: [...items],
        finish: (error) => {
          active -= 1;
          if (error) reject(error);
          else resolve();
        },
      });
    });
  return { runs, work, most: () => most };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Which of the promises have settled, and how. */
function watch(promises: Promise<void>[]) {
  const state: string[] = promises.map(() => 'pending');
  promises.forEach((promise, i) =>
    promise.then(
      () => (state[i] = 'done'),
      (error: Error) => (state[i] = `failed: ${error.message}`),
    ),
  );
  return state;
}

describe('coalesce', () => {
  it('runs the first caller at once and everyone who came meanwhile in one next run', async () => {
    const { runs, work, most } = gatedWork();
    const run = coalesce(work);
    const first = run([1, 2]);
    await tick();
    const waiting = [run([3]), run([4, 5]), run([6])];
    const state = watch([first, ...waiting]);
    await tick();
    expect(runs.map((r) => r.items)).toEqual([[1, 2]]);

    runs[0]!.finish();
    await tick();
    expect(state).toEqual(['done', 'pending', 'pending', 'pending']);
    expect(runs.map((r) => r.items)).toEqual([
      [1, 2],
      [3, 4, 5, 6],
    ]);

    // A caller arriving during the second run is not answered by it.
    const late = run([7]);
    const lateState = watch([late]);
    runs[1]!.finish();
    await tick();
    expect(state).toEqual(['done', 'done', 'done', 'done']);
    expect(lateState).toEqual(['pending']);
    expect(runs.map((r) => r.items)).toEqual([[1, 2], [3, 4, 5, 6], [7]]);
    runs[2]!.finish();
    await tick();
    expect(lateState).toEqual(['done']);
    expect(most()).toBe(1);
  });

  it('fails only the callers of the run that failed, and keeps going', async () => {
    const { runs, work } = gatedWork();
    const run = coalesce(work);
    const a = run([1]);
    await tick();
    const b = run([2]);
    const c = run([3]);
    const state = watch([a, b, c]);
    runs[0]!.finish();
    await tick();
    runs[1]!.finish(new Error('disk full'));
    await tick();
    expect(state).toEqual(['done', 'failed: disk full', 'failed: disk full']);
    const d = run([4]);
    const after = watch([d]);
    await tick();
    expect(runs.at(-1)!.items).toEqual([4]);
    runs.at(-1)!.finish();
    await tick();
    expect(after).toEqual(['done']);
  });

  it('answers an empty call at once without a run', async () => {
    const { runs, work } = gatedWork();
    await coalesce(work)([]);
    expect(runs).toHaveLength(0);
  });

  it('settles a caller whose run throws synchronously', async () => {
    const run = coalesce<number>(() => {
      throw new Error('bad statement');
    });
    await expect(run([1])).rejects.toThrow('bad statement');
    await expect(run([2])).rejects.toThrow('bad statement');
  });
});
