import { InvalidArgumentError, type Command } from 'commander';
import { z } from 'zod';
import { contextOf, type Context } from '../context.ts';
import { CliError, EXIT_API } from '../errors.ts';
import { ApiClient } from '../http.ts';
import { readJsonObject } from '../input.ts';
import { example } from '../kit.ts';

const SOURCES = [
  'STATUS_CODE',
  'JSON_BODY',
  'TEXT_BODY',
  'HEADERS',
  'RESPONSE_TIME',
  'RESPONSE_DATA',
  'RESPONSE_CODE',
  'TEXT_ANSWER',
  'JSON_ANSWER',
];
// Sources whose assertions name a property: a JSONPath or a header name.
const WITH_PROPERTY = new Set(['JSON_BODY', 'HEADERS', 'JSON_ANSWER']);
const COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'GREATER_THAN',
  'LESS_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_NULL',
  'NOT_NULL',
];
const UNITS = { s: 'seconds', m: 'minutes', h: 'hours', d: 'days' } as const;

export interface Assertion {
  source: string;
  property: string;
  comparison: string;
  target: string;
}

/** `SOURCE [property] COMPARISON [target…]`, e.g. `JSON_BODY $.status EQUALS ok`. */
export function parseAssertion(raw: string, previous: Assertion[] = []): Assertion[] {
  const words = raw.trim().split(/\s+/);
  const source = words.shift()?.toUpperCase() ?? '';
  if (!SOURCES.includes(source))
    throw new InvalidArgumentError(`unknown source "${source}"; one of ${SOURCES.join(', ')}`);
  const property = WITH_PROPERTY.has(source) ? (words.shift() ?? '') : '';
  const comparison = words.shift()?.toUpperCase() ?? '';
  if (!COMPARISONS.includes(comparison)) {
    throw new InvalidArgumentError(
      `expected "SOURCE [property] COMPARISON [target]"; "${comparison}" is not one of ${COMPARISONS.join(', ')}`,
    );
  }
  return [...previous, { source, property, comparison, target: words.join(' ') }];
}

/** `30s`, `5m`, `1h`, `2d` (a bare number is minutes). */
export function parseDuration(raw: string): { amount: number; unit: (typeof UNITS)[keyof typeof UNITS] } {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(raw.trim());
  if (!match) throw new InvalidArgumentError('expected a duration such as 30s, 5m, 1h or 2d');
  const unit = UNITS[(match[2] || 'm').toLowerCase() as keyof typeof UNITS];
  return { amount: Number(match[1]), unit };
}

export interface DefinitionOptions {
  url?: string;
  method?: string;
  header?: Array<{ key: string; value: string }>;
  body?: string;
  assert?: Assertion[];
  heartbeatPeriod?: { amount: number; unit: string };
  heartbeatGrace?: { amount: number; unit: string };
}

/** Adds the flags that describe what a check runs to `checks create`. */
export function definitionOptions(command: Command): Command {
  return command
    .option('--url <url>', 'what an API, URL or BROWSER check requests (may use {{VARIABLES}})')
    .option('--method <method>', 'HTTP method of an API check (default GET)')
    .option('--body <text>', 'request body of an API check (JSON is sent as JSON)')
    .option(
      '--assert <assertion>',
      'e.g. "STATUS_CODE EQUALS 200" or "JSON_BODY $.ok EQUALS true"; repeatable',
      parseAssertion,
    )
    .option(
      '--heartbeat-period <duration>',
      'a HEARTBEAT check expects a ping this often: 30s, 5m, 1h, 1d',
      parseDuration,
    )
    .option('--heartbeat-grace <duration>', 'how late a ping may be before it fails (default 0)', parseDuration);
}

/** The definition fields the flags describe, for a check of the given type. */
export function definitionFromOptions(checkType: unknown, options: DefinitionOptions): Record<string, unknown> {
  const assertions = options.assert ?? [];
  if (checkType === 'HEARTBEAT' && options.heartbeatPeriod) {
    const grace = options.heartbeatGrace ?? { amount: 0, unit: 'minutes' };
    return {
      heartbeat: {
        period: options.heartbeatPeriod.amount,
        periodUnit: options.heartbeatPeriod.unit,
        grace: grace.amount,
        graceUnit: grace.unit,
      },
    };
  }
  if (options.url === undefined) return {};
  if (checkType === 'BROWSER') return { browser: { url: options.url } };
  if (checkType === 'URL') return { request: { url: options.url, assertions } };
  const body = options.body ?? '';
  const json = body !== '' && isJson(body);
  return {
    request: {
      url: options.url,
      method: (options.method ?? 'GET').toUpperCase(),
      ...(body === '' ? {} : { body, bodyType: json ? 'JSON' : 'RAW' }),
      assertions,
    },
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export const runSchema = z.looseObject({
  result: z.looseObject({
    runLocation: z.string(),
    hasFailures: z.boolean(),
    isDegraded: z.boolean().optional(),
    responseTime: z.number(),
    statusCode: z.number().optional(),
    errorMessage: z.string().optional(),
    attempts: z.number().optional(),
    ssl: z.looseObject({ daysRemaining: z.number() }).optional(),
  }),
  assertions: z.array(
    z.looseObject({
      assertion: z.looseObject({
        source: z.string(),
        property: z.string(),
        comparison: z.string(),
        target: z.string(),
      }),
      passed: z.boolean(),
      actual: z.string(),
    }),
  ),
});
export type Run = z.infer<typeof runSchema>;

export function printRun(ctx: Context, run: Run): void {
  const { result } = run;
  const outcome = result.hasFailures ? 'FAILED' : result.isDegraded ? 'DEGRADED' : 'PASSED';
  const status = result.statusCode === undefined ? '' : `, HTTP ${result.statusCode}`;
  ctx.out.print(`${outcome} from ${result.runLocation} in ${Math.round(result.responseTime)} ms${status}`);
  if (result.errorMessage) ctx.out.print(`  ${result.errorMessage}`);
  if (result.ssl) ctx.out.print(`  certificate expires in ${result.ssl.daysRemaining} days`);
  if (run.assertions.length > 0) {
    ctx.out.table(run.assertions, [
      { header: 'OK', value: (a) => (a.passed ? 'yes' : 'NO') },
      {
        header: 'ASSERTION',
        value: (a) =>
          `${a.assertion.source} ${a.assertion.property} ${a.assertion.comparison} ${a.assertion.target}`.replace(
            /\s+/g,
            ' ',
          ),
      },
      { header: 'ACTUAL', value: (a) => a.actual },
    ]);
  }
}

export function registerCheckRuns(checks: Command, program: Command): void {
  const trigger = checks
    .command('trigger')
    .description('run a check now from each of its locations and show the results (they are stored and alert)')
    .argument('<checkId>', 'check id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx
        .client()
        .json(z.object({ results: z.array(runSchema) }), 'POST', `/v1/checks/${encodeURIComponent(id)}/trigger`);
      ctx.out.result(answer, () => answer.results.forEach((run) => printRun(ctx, run)));
      if (answer.results.some((run) => run.result.hasFailures)) throw new CliError('The check failed', EXIT_API);
    });
  example(trigger, 'vigil checks trigger 0b8c…');

  const test = checks
    .command('test')
    .description('run a check definition once without saving it (exit code 1 when it fails)')
    .requiredOption('--file <path>', 'the check as JSON, as for `checks create --data`; - reads standard input')
    .action(async (options: { file: string }, command: Command) => {
      const ctx = contextOf(command);
      const raw = options.file === '-' ? '-' : `@${options.file}`;
      const body = await readJsonObject(raw, '--file');
      const run = await ctx.client().json(runSchema, 'POST', '/v1/checks/test', { body });
      ctx.out.result(run, () => printRun(ctx, run));
      if (run.result.hasFailures) throw new CliError('The check failed', EXIT_API);
    });
  example(test, 'vigil checks test --file check.json');

  const heartbeat = program.command('heartbeat').description('heartbeat checks: ping URLs');
  example(heartbeat, 'vigil heartbeat ping Hk3…', 'vigil heartbeat rotate 0b8c…');
  const ping = heartbeat
    .command('ping')
    .description('ping a heartbeat check (no API key needed: the token is the credential)')
    .argument('<token>', 'the token at the end of the ping URL')
    .option('--fail', 'report that the job failed')
    // A token is base64url and may start with "-": it is the argument, not an unknown option.
    .allowUnknownOption()
    .action(async (token: string, options: { fail?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const path = `/ping/${encodeURIComponent(token)}${options.fail ? '/fail' : ''}`;
      const answer = await new ApiClient(ctx.apiUrl, undefined).json(
        z.looseObject({ checkId: z.string(), status: z.string() }),
        'POST',
        path,
      );
      ctx.out.result(answer, () => ctx.out.print(`Ping recorded for check ${answer.checkId}: ${answer.status}`));
    });
  example(ping, 'vigil heartbeat ping Hk3…', 'vigil heartbeat ping Hk3… --fail');

  const rotate = heartbeat
    .command('rotate')
    .description('give a heartbeat check a new ping URL; the old one stops working at once')
    .argument('<checkId>', 'check id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const check = await ctx
        .client()
        .json(
          z.looseObject({ heartbeat: z.looseObject({ pingUrl: z.string() }) }),
          'POST',
          `/v1/checks/${encodeURIComponent(id)}/heartbeat/rotate`,
        );
      ctx.out.result(check, () => ctx.out.print(`New ping URL: ${check.heartbeat.pingUrl}`));
    });
  example(rotate, 'vigil heartbeat rotate 0b8c…');
}
