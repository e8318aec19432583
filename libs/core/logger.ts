import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Paths pino blanks out in every log line: keys, secrets and the values they protect. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  '*.authorization',
  'apiKey',
  '*.apiKey',
  'key',
  'secret',
  '*.secret',
  'webhookSecret',
  '*.webhookSecret',
  '*.*.webhookSecret',
  'password',
  '*.password',
  'encryptionKey',
  '*.encryptionKey',
];

export interface LoggerOptions {
  level?: string;
  name?: string;
  /** Human-readable lines (pino-pretty); default: when stdout is a terminal. JSON otherwise. */
  pretty?: boolean;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const settings = {
    level: options.level ?? 'info',
    name: options.name,
    redact: { paths: redactPaths, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  return pretty ? pino(settings, prettyStream()) : pino(settings);
}

// Loaded only for a terminal, and in-thread (sync), so the last lines before an exit are not lost.
function prettyStream(): DestinationStream {
  const load = createRequire(import.meta.url)('pino-pretty') as (options: object) => DestinationStream;
  return load({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}
