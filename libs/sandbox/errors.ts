import { AppError } from '#core';

/** bubblewrap is missing or cannot create its namespaces here: user code is never run without it. */
export class SandboxUnavailableError extends AppError {
  readonly code = 'SANDBOX_UNAVAILABLE';
  readonly statusCode = 503;

  constructor(reason: string) {
    super(`sandbox unavailable: ${reason}`);
  }
}
