/** Exit codes: 0 success, 1 the API (or the network, or the data sent) failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_API = 1;
export const EXIT_USAGE = 2;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_API,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

/** A non-2xx answer; the message is the API's own, from its error body. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, EXIT_API);
    this.name = 'ApiError';
  }
}
