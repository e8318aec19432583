import { readFileSync } from 'node:fs';

/** The package version, read once; it appears in the OpenAPI document and in User-Agent headers. */
export const version: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
