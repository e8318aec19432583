import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from '#core';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type LogFn = (...args: unknown[]) => void;

/**
 * `request.log` without a pino child per request. fastify's default makes one for every request
 * (with options, pino's slow path: new formatters, and the request id run through the redaction
 * stringifiers); most requests never log at an enabled level, so that work was thrown away.
 *
 * This logger holds the root and the bindings, and makes the real child, once, the first time a
 * line is written at a level the root has enabled. The line is then the child's own: same
 * bindings (the request id), same redaction (configured at the root), same output.
 */
class RequestLogger {
  #child: Logger | null = null;

  constructor(
    private readonly root: Logger,
    private readonly bindingsOf: Bindings,
    private readonly options: object | undefined,
  ) {}

  /** The real pino child, made on first use. */
  private real(): Logger {
    return (this.#child ??= this.root.child(this.bindingsOf, this.options));
  }

  get level(): string {
    return this.#child?.level ?? this.root.level;
  }
  set level(level: string) {
    this.real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return this.#child ? this.#child.isLevelEnabled(level) : this.root.isLevelEnabled(level);
  }
  child(bindings: Bindings, options?: object): Logger {
    return this.real().child(bindings, options);
  }
  bindings(): Bindings {
    return this.#child ? this.#child.bindings() : { ...this.root.bindings(), ...this.bindingsOf };
  }
  setBindings(bindings: Bindings): void {
    this.real().setBindings(bindings);
  }
  flush(callback?: (error?: Error) => void): void {
    this.root.flush(callback);
  }
}

// One method per level: write through the child only when the level is enabled at the root (or
// on the child, once one exists with its own level).
for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as Level[]) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value: function (this: RequestLogger, ...args: unknown[]) {
      if (!this.isLevelEnabled(level)) return;
      (this as unknown as { real(): Record<Level, LogFn> }).real()[level](...args);
    },
  });
}
Object.defineProperty(RequestLogger.prototype, 'silent', { value: () => undefined });

/**
 * Installs the lazy per-request logger. Routes with their own log level or serializers (fastify
 * passes those as child options) get the real child at once, as fastify's default would make.
 */
export function installRequestLogger(app: FastifyInstance): void {
  app.setChildLoggerFactory((logger, bindings, options) => {
    if (hasAny(options)) return logger.child(bindings, options);
    return new RequestLogger(logger as Logger, bindings, undefined) as unknown as FastifyBaseLogger;
  });
}

/** Whether fastify passed any child option (a route's level or serializers); no key list is built per request. */
function hasAny(options: object | undefined): boolean {
  for (const key in options) if (Object.prototype.hasOwnProperty.call(options, key)) return true;
  return false;
}
