import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { hostileStrings } from './contract.ts';
import { sqlDateTime, sqlIdentifier, sqlNumber, sqlString, type SqlDialect } from './sql.ts';

/** Reads a ClickHouse '…' literal back the way the server does (the escapes sqlString emits). */
function readClickHouse(literal: string): string {
  expect(literal.startsWith("'") && literal.endsWith("'")).toBe(true);
  const body = literal.slice(1, -1);
  const simple: Record<string, string> = {
    '\\': '\\',
    "'": "'",
    '0': '\0',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
  };
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (char === "'") throw new Error(`unescaped quote at ${i} in ${literal}`);
    if (char !== '\\') {
      out += char;
      continue;
    }
    const next = body[++i] as string;
    if (next === 'x') {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (next in simple) out += simple[next];
    else throw new Error(`unknown escape \\${next}`);
  }
  return out;
}

/** Reads a DuckDB literal: '…' with '' for a quote, or ('…' || chr(0) || '…'). */
function readDuckDb(literal: string): string {
  const parts = literal.startsWith('(') ? literal.slice(1, -1).split(' || chr(0) || ') : [literal];
  return parts
    .map((part) => {
      expect(part.startsWith("'") && part.endsWith("'")).toBe(true);
      const body = part.slice(1, -1);
      expect(body.replaceAll("''", '')).not.toContain("'");
      return body.replaceAll("''", "'");
    })
    .join('\0');
}

const readers: Record<SqlDialect, (literal: string) => string> = { clickhouse: readClickHouse, duckdb: readDuckDb };

function randomHostile(length: number): string {
  const alphabet = [
    "'",
    '"',
    '\\',
    '\0',
    '\n',
    '\r',
    '\t',
    '\x01',
    '\x7f',
    ' ',
    'a',
    'ü',
    '😀',
    '\u2028',
    '|',
    '(',
    ')',
    '-',
    ';',
    'x',
    '0',
  ];
  return Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
}

describe('sqlString', () => {
  it.each(['clickhouse', 'duckdb'] as const)('%s: every hostile string reads back unchanged', (dialect) => {
    for (const text of [...hostileStrings, '', "'", '\\', "\\'", '\0', "''", '\0\0']) {
      expect(readers[dialect](sqlString(text, dialect))).toBe(text);
    }
    for (let n = 0; n < 500; n++) {
      const text = randomHostile(1 + (n % 40));
      expect(readers[dialect](sqlString(text, dialect))).toBe(text);
    }
  });

  it('clickhouse: escapes quotes, backslashes and control characters', () => {
    expect(sqlString("it's", 'clickhouse')).toBe("'it\\'s'");
    expect(sqlString('a\\b', 'clickhouse')).toBe("'a\\\\b'");
    expect(sqlString('nul\0, nl\n, soh\x01, del\x7f', 'clickhouse')).toBe("'nul\\0, nl\\n, soh\\x01, del\\x7f'");
    expect(sqlString('ü 😀', 'clickhouse')).toBe("'ü 😀'");
    // eslint-disable-next-line no-control-regex
    expect(sqlString(hostileStrings.join(''), 'clickhouse')).not.toMatch(/[\x00-\x1f\x7f]/);
  });

  it('duckdb: doubles quotes, keeps backslashes, and splices NUL in with chr(0)', () => {
    expect(sqlString("it's", 'duckdb')).toBe("'it''s'");
    expect(sqlString('a\\b', 'duckdb')).toBe("'a\\b'");
    expect(sqlString('a\0b', 'duckdb')).toBe("('a' || chr(0) || 'b')");
    expect(sqlString('a\0b', 'duckdb')).not.toContain('\0');
  });

  it('refuses what is not a string, and unknown dialects', () => {
    expect(() => sqlString(42 as unknown as string, 'duckdb')).toThrow(ValidationError);
    expect(() => sqlString('x', 'mysql' as SqlDialect)).toThrow(ValidationError);
  });
});

describe('sqlIdentifier', () => {
  it('quotes whitelisted names', () => {
    expect(sqlIdentifier('check_results')).toBe('"check_results"');
    expect(sqlIdentifier('_a1')).toBe('"_a1"');
    expect(sqlIdentifier('vigil_test_abc123')).toBe('"vigil_test_abc123"');
  });

  it.each(['', '1a', 'a-b', 'a"b', 'a b', 'a;b', 'ä', 'a.b', '`a`', 'x'.repeat(65)])('refuses %j', (name) => {
    expect(() => sqlIdentifier(name)).toThrow(ValidationError);
  });
});

describe('sqlNumber', () => {
  it('prints finite numbers', () => {
    expect(sqlNumber(0)).toBe('0');
    expect(sqlNumber(-1.5)).toBe('-1.5');
    expect(sqlNumber(1e21)).toBe('1e+21');
    expect(sqlNumber(0.95)).toBe('0.95');
  });

  it.each([
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    '1' as unknown as number,
    1n as unknown as number,
  ])('refuses %s', (value) => {
    expect(() => sqlNumber(value)).toThrow(ValidationError);
  });
});

describe('sqlDateTime', () => {
  it('prints UTC to the second', () => {
    expect(sqlDateTime(new Date('2024-01-02T03:04:05.999Z'))).toBe("'2024-01-02 03:04:05'");
    expect(sqlDateTime(new Date('2024-01-02T05:04:05+02:00'))).toBe("'2024-01-02 03:04:05'");
  });

  it.each([
    new Date(Number.NaN),
    new Date('1969-12-31T23:59:59Z'),
    new Date('2106-01-01T00:00:00Z'),
    '2024-01-01' as unknown as Date,
  ])('refuses %s', (value) => {
    expect(() => sqlDateTime(value)).toThrow(ValidationError);
  });
});
