/**
 * Runs `step` over consecutive chunks of `items` (at most `size` each), with at most `depth`
 * chunks running at once: chunk k+1 starts while chunk k still drains its last attempts and
 * waits for its group commit, so the receivers and the event loop are not left idle at each
 * chunk's end. Chunks start in order. Resolves once every chunk has resolved; after a failure no
 * further chunk starts, and it rejects with the first error once the running ones have settled
 * (a caller that acknowledges the whole input only on success then loses nothing).
 */
export async function inPipeline<T>(
  items: readonly T[],
  options: { size: number; depth: number },
  step: (chunk: T[]) => Promise<void>,
): Promise<void> {
  const size = Math.max(1, options.size);
  const depth = Math.max(1, options.depth);
  if (items.length <= size) return items.length === 0 ? undefined : step(items.slice());
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  for (let start = 0; start < items.length && !failure; start += size) {
    while (running.size >= depth && !failure) await Promise.race(running);
    if (failure) break;
    const chunk = items.slice(start, start + size);
    const run: Promise<void> = step(chunk).then(
      () => void running.delete(run),
      (error: unknown) => {
        failure ??= { error };
        running.delete(run);
      },
    );
    running.add(run);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}
