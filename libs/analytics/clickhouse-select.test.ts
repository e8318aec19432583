import { describe, expect, it } from 'vitest';
import { InternalError } from '#core';
import { parseRows } from './clickhouse-select.ts';

describe('parseRows (JSONEachRow)', () => {
  it('reads one object per line, with or without the last newline', () => {
    expect(parseRows('{"a":1}\n{"a":2}\n')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseRows('{"a":1}\n{"a":2}')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseRows('')).toEqual([]);
  });

  it("throws the server's text when an error follows the first rows", () => {
    const text =
      '{"a":1}\nCode: 395, e.displayText() = DB::Exception: Value passed to \'throwIf\' function is non zero\n';
    expect(() => parseRows(text)).toThrow(/^Code: 395, e\.displayText\(\)/);
  });

  it('finds the error when it cuts a row short', () => {
    expect(() => parseRows('{"a":1}\n{"a":Code: 241. DB::Exception: Memory limit exceeded')).toThrow(/^Code: 241\. DB/);
  });

  it('refuses a line that is neither a row nor a server error', () => {
    expect(() => parseRows('{"a":1}\n<html>proxy error</html>\n')).toThrow(InternalError);
  });
});
