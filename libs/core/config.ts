import { z } from 'zod';
import { ConfigError } from './errors.ts';

/**
 * Parses the environment against an app's schema once, at start-up. A bad value becomes a
 * ConfigError whose message names every offending variable.
 */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    // An empty variable means "unset" in the shell conventions operators expect.
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** Reusable pieces for config schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((value) => value === 'true' || value === '1' || value === 'yes'),
  url: (protocols: string[]) =>
    z.string().refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol.replace(':', ''));
        } catch {
          return false;
        }
      },
      `expected a ${protocols.join(' or ')} URL`,
    ),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A comma-separated list, e.g. Kafka brokers. */
  list: () =>
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string()).min(1)),
};
