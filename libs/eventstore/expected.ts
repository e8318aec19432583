import { ConcurrencyError } from '#core';
import type { ExpectedRevision } from './port.ts';

/** Throws ConcurrencyError unless the stream's current revision (-1: no stream) is what the append expects. */
export function checkExpected(stream: string, expected: ExpectedRevision, current: number): void {
  const ok = expected === 'any' || (expected === 'no_stream' ? current === -1 : expected === current);
  if (ok) return;
  const actual = current === -1 ? 'no stream' : `revision ${current}`;
  throw new ConcurrencyError(
    `Stream ${stream} is at ${actual}, expected ${expected === 'no_stream' ? 'no stream' : `revision ${expected}`}`,
    {
      details: { stream, expectedRevision: expected, actualRevision: current === -1 ? null : current },
    },
  );
}
