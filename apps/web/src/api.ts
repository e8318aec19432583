import type { Operations } from './api.gen.ts';

export type { Operations };
type Route = keyof Operations;
type Method<R extends string> = R extends `${infer M} ${string}` ? M : never;
type PathOf<R extends string> = R extends `${string} ${infer P}` ? P : never;
export type Response<R extends Route> = Operations[R]['response'];
export type Body<R extends Route> = Operations[R]['body'];

const SESSION_KEY = 'vigil.session';

export interface Session {
  key: string;
  accountId: string;
  accountName: string;
  role: string;
}

export function session(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function saveSession(value: Session | null): void {
  if (value) sessionStorage.setItem(SESSION_KEY, JSON.stringify(value));
  else sessionStorage.removeItem(SESSION_KEY);
}

/** An API error as the API words it: the message names the field to fix. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
  /** The field the message starts with ("request.url: ..."), if any. */
  get field(): string | null {
    const match = /^([A-Za-z_][\w.[\]]*): /.exec(this.message);
    return match ? match[1]! : null;
  }
}

export function canWrite(s: Session | null): boolean {
  return s !== null && s.role !== 'READ_ONLY';
}

/** Fills {param} placeholders of an OpenAPI path. */
function fill(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export async function raw(
  method: string,
  url: string,
  options: { body?: unknown; key?: string; accountId?: string } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const s = session();
  const key = options.key ?? s?.key;
  const accountId = options.accountId ?? s?.accountId;
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (accountId) headers['x-service-account'] = accountId;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as unknown) : null;
  if (!response.ok) {
    const message = (body as { message?: string } | null)?.message ?? response.statusText;
    if (response.status === 401 && !options.key) {
      saveSession(null);
      window.dispatchEvent(new Event('vigil:signed-out'));
    }
    throw new ApiError(response.status, message);
  }
  return { status: response.status, body, headers: response.headers };
}

/** A typed call: the route string is checked against the OpenAPI document's operations. */
export async function call<R extends Route>(
  route: R,
  options: {
    params?: Record<string, string>;
    query?: Partial<Record<string, unknown>>;
    body?: Body<R>;
  } = {},
): Promise<Response<R>> {
  const method: Method<R> = route.split(' ')[0] as Method<R>;
  const path: PathOf<R> = route.slice(route.indexOf(' ') + 1) as PathOf<R>;
  const result = await raw(method, fill(path, options.params) + queryString(options.query), { body: options.body });
  return result.body as Response<R>;
}
