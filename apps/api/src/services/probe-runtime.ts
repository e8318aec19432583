import { UnavailableError, type Logger } from '#core';
import type { Prober } from './probe-types.ts';

// TEMPORARY (uncommitted): replaced by #probes once it lands.
export function createProbeRuntime(_options: {
  chromiumPath: string;
  log: Logger;
}): Prober & { close(): Promise<void> } {
  const missing = async (): Promise<never> => {
    throw new UnavailableError('probes not wired yet');
  };
  return { runProbe: missing, runWithRetries: missing, close: async () => {} };
}
