import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CliError } from './errors.ts';

/** What `vigil login` keeps: config.json in the config directory, readable by its owner only. */
export const storedSchema = z.object({
  apiUrl: z.string().optional(),
  apiKey: z.string().optional(),
  accountId: z.string().optional(),
});
export type Stored = z.infer<typeof storedSchema>;

export function configFile(dir: string): string {
  return join(dir, 'config.json');
}

export function loadStored(dir: string, warn: (message: string) => void): Stored {
  const file = configFile(dir);
  if (!existsSync(file)) return {};
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
    warn(`${file} is readable by other users; run: chmod 600 ${file}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}; fix it or run vigil login again`);
  }
  const parsed = storedSchema.safeParse(raw);
  if (!parsed.success) throw new CliError(`${file} is not a vigil config file; run vigil login again`);
  return parsed.data;
}

export function saveStored(dir: string, stored: Stored): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configFile(dir);
  // Written aside then renamed, so the key is never in a file with looser permissions, even briefly.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return file;
}
