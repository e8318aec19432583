export * from './errors.ts';
export { parseConfig, env } from './config.ts';
export { createLogger, redactPaths, type Logger, type LoggerOptions } from './logger.ts';
export { Lifecycle, type Closer } from './lifecycle.ts';
export { sleep } from './abort.ts';
export {
  createSecretBox,
  parseEncryptionKey,
  generateApiKey,
  sha256Hex,
  hmacSha256Hex,
  constantTimeEqual,
  API_KEY_PREFIX,
  type SecretBox,
} from './crypto.ts';
export { Sqlite, sqliteDriverPath, type SqliteDriver } from './sqlite.ts';
export { isClosedTargetRejection, tolerateClosedTargetRejections } from './rejections.ts';
