import { pino, type Logger } from 'pino';

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
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino({
    level: options.level ?? 'info',
    name: options.name,
    redact: { paths: redactPaths, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
