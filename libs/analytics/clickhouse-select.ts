import { Pool, errors } from 'undici';
import { InternalError } from '#core';

/**
 * Read-only statements to a ClickHouse server over HTTP, straight through undici.
 *
 * @clickhouse/client (1.23) waits one timer tick (`setTimeout(0)`, at least 1 ms in Node) before
 * every request, so idle-socket timers can run first (clickhouse-js#296). Against 18.16 on
 * loopback that made `SELECT 1` take 1.8–1.9 ms instead of 0.4, and a one-check read pays it on
 * every statement. Reads are the latency path, so they come here; inserts and DDL stay on the
 * client, where a millisecond per batch does not matter.
 */
export interface ClickHouseSelect {
  /** JSONEachRow rows of one statement, run with `readonly = 2`. */
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export interface ClickHouseSelectOptions {
  url: string;
  database: string;
  timeoutMs: number;
  /** Pooled sockets are dropped after this long idle (below the server's keep-alive timeout). */
  keepAliveMs: number;
}

/** Statements one store sends at once (a reader sends two per rollup read; readers run side by side). */
export const READ_CONNECTIONS = 10;
/** Attempts for one statement when a pooled socket turns out to be closed before any answer. */
const ATTEMPTS = 3;
/** Every read's settings, on every transport (chdb puts them in the statement's SETTINGS clause). */
export const READ_SETTINGS = {
  readonly: '2',
  // 64-bit integers unquoted, so rows hold JS numbers, as the client's reads do.
  output_format_json_quote_64bit_integers: '0',
  // Dashboards read the same checks' granules again and again: decompressing them once saves a
  // quarter of a one-check read on 18.16 (5.0 -> 3.7 ms). Large scans skip the cache by themselves
  // (merge_tree_max_rows_to_use_cache), and a server whose uncompressed_cache_size is 0 ignores it.
  use_uncompressed_cache: '1',
};

export function createClickHouseSelect(options: ClickHouseSelectOptions): ClickHouseSelect {
  const url = new URL(options.url);
  const search = new URLSearchParams({ ...READ_SETTINGS, default_format: 'JSONEachRow', database: options.database });
  const path = `${url.pathname || '/'}?${search.toString()}`;
  const user = decodeURIComponent(url.username) || 'default';
  const headers = {
    authorization: `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString('base64')}`,
    'content-type': 'text/plain; charset=utf-8',
    'user-agent': 'vigil',
  };
  const pool = new Pool(url.origin, {
    connections: READ_CONNECTIONS,
    keepAliveTimeout: options.keepAliveMs,
    keepAliveMaxTimeout: options.keepAliveMs,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  async function once(sql: string): Promise<string> {
    const response = await pool.request({ method: 'POST', path, headers, body: sql });
    const text = await response.body.text();
    // The server's own text ("Code: 62, e.displayText() = …" on 18.16, "Code: 62. DB::Exception: …" now).
    if (response.statusCode !== 200) throw new Error(text.trim() || `HTTP ${response.statusCode}`);
    return text;
  }

  return {
    async rows<T>(sql: string): Promise<T[]> {
      let text: string | undefined;
      for (let attempt = 1; text === undefined; attempt++) {
        try {
          text = await once(sql);
        } catch (error) {
          // A socket the server closed while the event loop was too busy to notice fails before any
          // answer arrives. The statement is read-only, so sending it again on a new socket is safe.
          if (attempt >= ATTEMPTS || !closedBeforeAnswer(error)) throw error;
        }
      }
      return parseRows<T>(text);
    },
    close: () => pool.close(),
  };
}

function closedBeforeAnswer(error: unknown): boolean {
  if (error instanceof errors.SocketError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * One JSON object per line. A server error after the first rows were sent (a large answer) comes
 * as plain text at the end of a 200 answer; it is thrown with the server's text.
 */
export function parseRows<T>(text: string): T[] {
  const rows: T[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    let row: T;
    try {
      row = JSON.parse(line) as T;
    } catch {
      const at = text.indexOf('Code: ', start - line.length - 1);
      if (at !== -1) throw new Error(text.slice(at).trim());
      throw new InternalError(`ClickHouse sent a row that is not JSON: ${line.slice(0, 200)}`);
    }
    rows.push(row);
  }
  return rows;
}
