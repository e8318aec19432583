import { z } from 'zod';
import type { ApiClient, Query } from './http.ts';
import { expectShape } from './http.ts';

const PAGE_SIZE = 100;
// A guard against a server that ignores `page`: never loop for ever.
const MAX_PAGES = 1000;

/** Every item of a paged list (limit ≤ 100, page ≥ 1, X-Total-Count when the route sends it). */
export async function fetchAll<S extends z.ZodType>(
  client: ApiClient,
  path: string,
  item: S,
  query: Query = {},
): Promise<Array<z.output<S>>> {
  const items: Array<z.output<S>> = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const response = await client.send('GET', path, { query: { ...query, limit: PAGE_SIZE, page } });
    const batch = expectShape(z.array(item), response.body, `GET ${path}`);
    items.push(...batch);
    const total = Number(response.headers.get('x-total-count') ?? Number.NaN);
    if (batch.length < PAGE_SIZE || (Number.isFinite(total) && items.length >= total)) break;
  }
  return items;
}

/** One page when --limit or --page is given, otherwise all of them. */
export async function fetchList<S extends z.ZodType>(
  client: ApiClient,
  path: string,
  item: S,
  options: { limit?: number; page?: number },
  query: Query = {},
): Promise<Array<z.output<S>>> {
  if (options.limit === undefined && options.page === undefined) return fetchAll(client, path, item, query);
  const response = await client.send('GET', path, { query: { ...query, limit: options.limit, page: options.page } });
  const items = expectShape(z.array(item), response.body, `GET ${path}`);
  // On stderr, so stdout stays the list alone for scripts and --json.
  const footer = pageFooter(items.length, options, response.headers.get('x-total-count'));
  if (footer) process.stderr.write(footer + '\n');
  return items;
}

/** "3 of 52, next: --page 2" from X-Total-Count; undefined when the route sends no total. */
export function pageFooter(
  shown: number,
  options: { limit?: number; page?: number },
  totalHeader: string | null,
): string | undefined {
  const total = Number(totalHeader ?? Number.NaN);
  if (!Number.isFinite(total)) return undefined;
  const page = options.page ?? 1;
  const limit = options.limit ?? 10;
  const before = (page - 1) * limit;
  const range = shown === 0 ? `0` : `${before + 1}-${before + shown}`;
  const next = before + shown < total ? `, next: --page ${page + 1}` : '';
  return `${range} of ${total}${next}`;
}
