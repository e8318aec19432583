/** A browser call that gave no answer within its own limit (not the run's abort). */
export class BrowserCallTimeout extends Error {
  override name = 'BrowserCallTimeout';
}

/**
 * Settles like `call`, but rejects at once when `signal` aborts (with its reason) or after `limitMs`
 * (with a BrowserCallTimeout). A CDP call can hang forever (a closed target, a stopped browser), so
 * no browser call may be awaited without this. The call's late outcome is observed and dropped, so
 * it never surfaces as an unhandled rejection.
 */
export function bounded<T>(call: Promise<T>, what: string, signal?: AbortSignal, limitMs?: number): Promise<T> {
  call.catch(() => undefined);
  if (!signal && limitMs === undefined) return call;
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      finish();
      reject(signal?.reason ?? new Error(`${what}: aborted`));
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (limitMs !== undefined)
      timer = setTimeout(() => {
        finish();
        reject(new BrowserCallTimeout(`${what} gave no answer within ${limitMs} ms`));
      }, limitMs);
    call.then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
        reject(error);
      },
    );
  });
}
