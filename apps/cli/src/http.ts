import type { z } from 'zod';
import { ApiError, CliError } from './errors.ts';
import { errorBodySchema } from './schemas.ts';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, the raw text when it is not JSON, or null when empty. */
  body: unknown;
}

const USER_AGENT = 'vigil-cli/0.1.0';
const DEFAULT_TIMEOUT_MS = 60_000;

/** A thin fetch wrapper: one key, optionally one account, errors turned into ApiError. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string | undefined,
    readonly accountId?: string,
    /** Where the key came from (VIGIL_API_KEY, the login's config file, …), named when it is refused. */
    readonly keySource?: string,
  ) {}

  /** Any answer, errors included; `send` is the version that throws on a non-2xx status. */
  async raw(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: 'application/json',
      ...options.headers,
    };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    if (this.accountId) headers['x-service-account'] = this.accountId;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new CliError(`Cannot reach ${this.baseUrl}: ${describeFetchError(error)}`);
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: parseBody(text) };
  }

  async send(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const response = await this.raw(method, path, options);
    if (response.status >= 400) {
      const error = apiError(response);
      if ((response.status === 401 || response.status === 403) && this.keySource)
        throw new ApiError(error.status, `${error.message} (rejected key: ${this.keySource})`);
      throw error;
    }
    return response;
  }

  /** Sends, then checks the body against the schema the command relies on. */
  async json<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<z.output<S>> {
    const response = await this.send(method, path, options);
    return expectShape(schema, response.body, `${method} ${path}`);
  }

  get<S extends z.ZodType>(schema: S, path: string, query?: Query): Promise<z.output<S>> {
    return this.json(schema, 'GET', path, { query });
  }

  /** GET of a file (an artifact): its bytes on 2xx; an error body is read and thrown like any other. */
  async bytes(path: string): Promise<Buffer> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    if (this.accountId) headers['x-service-account'] = this.accountId;
    let response: Response;
    try {
      response = await fetch(new URL(this.baseUrl + path), {
        headers,
        signal: AbortSignal.timeout(DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new CliError(`Cannot reach ${this.baseUrl}: ${describeFetchError(error)}`);
    }
    if (response.status >= 400)
      throw apiError({ status: response.status, headers: response.headers, body: parseBody(await response.text()) });
    return Buffer.from(await response.arrayBuffer());
  }
}

export function expectShape<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new CliError(`Unexpected answer to ${what}${where}: ${issue?.message ?? 'invalid'}`);
}

export function apiError(response: ApiResponse): ApiError {
  const parsed = errorBodySchema.safeParse(response.body);
  if (parsed.success) return new ApiError(response.status, parsed.data.message);
  const text = typeof response.body === 'string' && response.body.length > 0 ? `: ${response.body.slice(0, 200)}` : '';
  return new ApiError(response.status, `HTTP ${response.status}${text}`);
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'the request timed out';
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
