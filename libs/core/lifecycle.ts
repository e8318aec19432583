import type { Logger } from 'pino';

export type Closer = () => Promise<void> | void;

/**
 * Collects what a process opened and closes it in reverse order on SIGTERM or SIGINT.
 * Whoever opens a connection registers its close here.
 */
export class Lifecycle {
  private readonly closers: { name: string; close: Closer }[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly log: Logger) {}

  add(name: string, close: Closer): void {
    this.closers.push({ name, close });
  }

  async stop(): Promise<void> {
    this.stopping ??= this.runClosers();
    return this.stopping;
  }

  private async runClosers(): Promise<void> {
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close();
        this.log.debug({ component: name }, 'closed');
      } catch (error) {
        this.log.error({ err: error, component: name }, 'close failed');
      }
    }
  }

  /** Installs signal handlers: drain, close, exit 0. A second signal exits at once. */
  handleSignals(timeoutMs = 25_000): void {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) process.exit(1);
      received = true;
      this.log.info({ signal }, 'shutting down');
      const timer = setTimeout(() => {
        this.log.error({ timeoutMs }, 'shutdown timed out');
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      void this.stop().then(() => {
        this.log.info('stopped');
        process.exit(0);
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
}
