import { ValidationError } from '#core';

/**
 * The one way values reach SQL text. Callers validate first (ids as UUIDs, metric names against
 * a list); these helpers then make the value inert. Inserts never build SQL from values at all:
 * ClickHouse gets JSONEachRow, DuckDB the appender.
 *
 * String literals differ between the engines, so `sqlString` takes the dialect: ClickHouse reads
 * backslash escapes inside '…' (so `\` must be doubled), DuckDB follows standard SQL (a
 * backslash is a plain character) and cannot hold NUL in SQL text at all.
 */
export type SqlDialect = 'clickhouse' | 'duckdb';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_IDENTIFIER = 64;

/** A quoted identifier, after a whitelist check: `"name"` reads the same in both engines. */
export function sqlIdentifier(name: string): string {
  if (typeof name !== 'string' || name.length > MAX_IDENTIFIER || !IDENTIFIER.test(name)) {
    throw new ValidationError(
      `invalid SQL identifier ${JSON.stringify(name)}: use letters, digits and _ (at most ${MAX_IDENTIFIER})`,
    );
  }
  return `"${name}"`;
}

/** A numeric literal; NaN and ±Infinity are refused because neither engine parses them the same. */
export function sqlNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ValidationError(`invalid SQL number ${String(value)}: expected a finite number`);
  }
  // -0 prints as "0"; String() never emits anything but digits, '.', '-', 'e' and '+' here.
  return String(value);
}

/**
 * A quoted UTC timestamp 'YYYY-MM-DD hh:mm:ss', to the second: ClickHouse DateTime has no
 * fraction. Both engines compare it with the started_at column (DateTime('UTC') / TIMESTAMP
 * holding UTC). Sub-second bounds go through started_ms with sqlNumber.
 */
export function sqlDateTime(date: Date): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new ValidationError('invalid SQL date: expected a valid Date');
  }
  const year = date.getUTCFullYear();
  if (year < 1970 || year > 2105) {
    throw new ValidationError(`invalid SQL date ${date.toISOString()}: outside 1970–2105`);
  }
  return `'${formatDateTime(date)}'`;
}

/** 'YYYY-MM-DD hh:mm:ss' in UTC, the text form ClickHouse reads and writes for DateTime. */
export function formatDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

export function sqlString(value: string, dialect: SqlDialect): string {
  if (typeof value !== 'string')
    throw new ValidationError(`invalid SQL string: expected a string, got ${typeof value}`);
  if (dialect === 'clickhouse') return `'${escapeClickHouse(value)}'`;
  if (dialect === 'duckdb') return duckDbString(value);
  throw new ValidationError(`unknown SQL dialect ${JSON.stringify(dialect)}`);
}

const clickHouseEscapes: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

// Every C0 control character is escaped too, so a literal never carries raw control bytes
// into logs or the query log.
// eslint-disable-next-line no-control-regex
const clickHouseSpecial = /[\\'\x00-\x1f\x7f]/g;

function escapeClickHouse(value: string): string {
  return value.replace(
    clickHouseSpecial,
    (char) => clickHouseEscapes[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

function duckDbString(value: string): string {
  const quote = (part: string) => `'${part.replaceAll("'", "''")}'`;
  if (!value.includes('\0')) return quote(value);
  // DuckDB parses SQL as a C string, so NUL is spliced in with chr(0).
  return `(${value.split('\0').map(quote).join(' || chr(0) || ')})`;
}
