/**
 * The one error hierarchy. Every error a caller can see has a stable code, an HTTP status
 * and a retryable flag. Adapters translate driver errors into these; nothing above an
 * adapter ever sees a driver error.
 */
export interface AppErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

export abstract class AppError extends Error {
  abstract readonly code: string;
  abstract readonly statusCode: number;
  readonly retryable: boolean = false;
  readonly details: Record<string, unknown> | undefined;

  constructor(message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details;
  }
}

export class ValidationError extends AppError {
  readonly code = 'VALIDATION_FAILED';
  readonly statusCode = 400;
}

export class UnauthorizedError extends AppError {
  readonly code = 'UNAUTHORIZED';
  readonly statusCode = 401;
}

export class PlanRequiredError extends AppError {
  readonly code = 'PLAN_REQUIRED';
  readonly statusCode = 402;
}

export class ForbiddenError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly statusCode = 403;
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
  readonly statusCode = 404;
}

export class ConflictError extends AppError {
  readonly code: string = 'CONFLICT';
  readonly statusCode = 409;
}

/** A write raced another write on the same stream: the expected revision was stale. */
export class ConcurrencyError extends ConflictError {
  override readonly code = 'CONCURRENCY_CONFLICT';
  override readonly retryable = true;
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  readonly statusCode = 413;
}

/** The body is in a form the route does not read (a Content-Type or Content-Encoding it does not know). */
export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  readonly statusCode = 415;
}

export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  readonly statusCode = 429;
  override readonly retryable = true;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A dependency (database, broker) is unreachable or failing. Safe to retry later. */
export class UnavailableError extends AppError {
  readonly code = 'DEPENDENCY_UNAVAILABLE';
  readonly statusCode = 503;
  override readonly retryable = true;
}

export class InternalError extends AppError {
  readonly code = 'INTERNAL';
  readonly statusCode = 500;
}

/** Configuration is invalid; start-up stops. The message names the variable. */
export class ConfigError extends AppError {
  readonly code = 'CONFIG_INVALID';
  readonly statusCode = 500;
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
