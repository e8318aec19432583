import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { UsageError } from './errors.ts';

/** Commander argument parsers: a bad value is a usage error (exit 2), reported before any request. */
export function integer(min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    return value;
  };
}

/** For repeatable options: `--tag a --tag b`, or `--tag a,b`. */
export function collect(raw: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ];
}

/** For repeatable `--header Name:value` / `--var KEY=value` options. */
export function pairs(separator: string) {
  return (raw: string, previous: Array<{ key: string; value: string }> = []) => {
    const at = raw.indexOf(separator);
    if (at <= 0) throw new InvalidArgumentError(`expected KEY${separator}VALUE`);
    return [...previous, { key: raw.slice(0, at).trim(), value: raw.slice(at + 1).trimStart() }];
  };
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `--data` takes JSON, `@file` or `-` (standard input). */
export async function readText(raw: string): Promise<string> {
  if (raw === '-') return readStdin();
  if (raw.startsWith('@')) {
    try {
      return readFileSync(raw.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read ${raw.slice(1)}: ${(error as Error).message}`);
    }
  }
  return raw;
}

export async function readJson(raw: string, what = '--data'): Promise<unknown> {
  const text = await readText(raw);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

export async function readJsonObject(raw: string | undefined, what = '--data'): Promise<Record<string, unknown>> {
  if (raw === undefined) return {};
  const value = await readJson(raw, what);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Drops undefined, so flags that were not given never override --data. */
export function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
