import { InvalidArgumentError, type Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../errors.ts';
import { apiError, type Query } from '../http.ts';
import { pairs, readJson } from '../input.ts';
import { example } from '../kit.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

interface ApiOptions {
  data?: string;
  query?: Array<{ key: string; value: string }>;
  header?: Array<{ key: string; value: string }>;
  admin?: boolean;
  ingest?: boolean;
  include?: boolean;
}

export function registerApi(program: Command): void {
  const api = program
    .command('api')
    .description('call any API route with your credentials and print the JSON answer')
    .argument('<method>', METHODS.join(', '), (raw: string) => {
      const method = raw.toUpperCase();
      if (!METHODS.includes(method)) throw new InvalidArgumentError(`use one of ${METHODS.join(', ')}`);
      return method;
    })
    .argument('<path>', 'the path, e.g. /v1/variables')
    .option('-d, --data <json>', 'request body: JSON, @file or - (standard input)')
    .option('-q, --query <name=value>', 'a query parameter; repeat for more', pairs('='))
    .option('-H, --header <Name:value>', 'a request header; repeat for more', pairs(':'))
    .option('--admin', 'authenticate with VIGIL_ADMIN_KEY')
    .option('--ingest', 'authenticate with VIGIL_INGEST_KEY')
    .option('-i, --include', 'print the status line and headers to standard error')
    .action(async (method: string, path: string, options: ApiOptions, command: Command) => {
      const ctx = contextOf(command);
      if (!path.startsWith('/')) throw new UsageError('The path must start with /, e.g. /v1/accounts/me');
      const client = options.admin ? ctx.adminClient() : options.ingest ? ctx.ingestClient() : ctx.client();
      const query: Query = Object.fromEntries((options.query ?? []).map(({ key, value }) => [key, value]));
      const headers = Object.fromEntries((options.header ?? []).map(({ key, value }) => [key.toLowerCase(), value]));
      const body = options.data === undefined ? undefined : await readJson(options.data);
      const response = await client.raw(method, path, { query, headers, body });
      if (options.include) {
        ctx.out.info(`HTTP ${response.status}`);
        response.headers.forEach((value, name) => ctx.out.info(`${name}: ${value}`));
      }
      if (response.status >= 400) throw apiError(response);
      if (response.body === null) return;
      const answer = response.body;
      // Through result(), so the global --get picks one field of the answer, as for every other command.
      ctx.out.result(answer, () =>
        ctx.out.print(typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2)),
      );
    });
  example(
    api,
    'vigil api GET /v1/accounts/me',
    'vigil api POST /v1/variables --data \'{"key":"REGION","value":"eu"}\'',
    'vigil api GET /v1/variables -q limit=100 -i',
    'vigil api GET /v1/accounts/me --get id',
  );
}
