import { basename } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { CliError, EXIT_API, UsageError } from '../errors.ts';
import { ApiClient } from '../http.ts';
import { defined, integer, readJsonObject } from '../input.ts';
import { example } from '../kit.ts';
import { readScript, readSuite } from '../script-files.ts';
import { printRun, RUN_TIMEOUT_MS, runSchema } from './run-output.ts';

export { printRun, runSchema, type Run } from './run-output.ts';

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
  /** A test file: the script of a MULTI_STEP, PLAYWRIGHT or BROWSER check. */
  script?: string;
  /** A directory: a PLAYWRIGHT check's test project. */
  files?: string;
}

/** The flags that name a script: --script for a test file, --files for a PLAYWRIGHT test project. */
export function scriptOptions(command: Command): Command {
  return command
    .option(
      '--script <file>',
      'a Playwright test file (TypeScript, ESM or CommonJS): the script of a MULTI_STEP, PLAYWRIGHT or BROWSER check',
    )
    .option('--files <dir>', "a PLAYWRIGHT check's test project: every file under the directory (1 MiB in all)");
}

/** Adds the flags that describe what a check runs to `checks create`. */
export function definitionOptions(command: Command): Command {
  return scriptOptions(command)
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
  if (options.script !== undefined && options.files !== undefined)
    throw new UsageError('Give --script or --files, not both');
  if (options.script !== undefined) return { script: readScript(options.script, '--script') };
  if (options.files !== undefined) {
    if (checkType !== 'PLAYWRIGHT') throw new UsageError('--files makes a PLAYWRIGHT check: add --type PLAYWRIGHT');
    return { files: readSuite(options.files, '--files') };
  }
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

interface TestOptions extends DefinitionOptions {
  file?: string;
  type?: string;
  name?: string;
  runtime?: string;
  maxMs?: number;
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
        .json(z.object({ results: z.array(runSchema) }), 'POST', `/v1/checks/${encodeURIComponent(id)}/trigger`, {
          timeoutMs: RUN_TIMEOUT_MS,
        });
      ctx.out.result(answer, () => answer.results.forEach((run) => printRun(ctx, run)));
      if (answer.results.some((run) => run.result.hasFailures)) throw new CliError('The check failed', EXIT_API);
    });
  example(trigger, 'vigil checks trigger 0b8c…');

  const test = scriptOptions(checks.command('test'))
    .description('run a check definition once without saving it (exit code 1 when it fails)')
    .option('--file <path>', 'the check as JSON, as for `checks create --data`; - reads standard input')
    .addOption(
      new Option('--type <type>', 'with --script: the check type (default MULTI_STEP)').choices([
        'MULTI_STEP',
        'PLAYWRIGHT',
        'BROWSER',
      ]),
    )
    .option('--name <name>', 'with --script: the check name (default: the file name)')
    .option('--runtime <runtimeId>', "the runtime a script runs in, YYYY.MM (default: the account's)")
    .option('--max-ms <ms>', "a script's time budget, at most 240000 (the default)", integer(1, 240_000))
    .action(async (options: TestOptions, command: Command) => {
      const ctx = contextOf(command);
      if (options.file === undefined && options.script === undefined && options.files === undefined)
        throw new UsageError('Give --file (a check as JSON), --script (a test file) or --files (a test project)');
      const data =
        options.file === undefined
          ? {}
          : await readJsonObject(options.file === '-' ? '-' : `@${options.file}`, '--file');
      const scripted = options.script !== undefined || options.files !== undefined;
      const checkType = options.type ?? data.checkType ?? (options.files !== undefined ? 'PLAYWRIGHT' : 'MULTI_STEP');
      const source = options.script ?? options.files;
      const body = {
        ...data,
        ...(scripted ? { checkType, name: data.name ?? basename(source!) } : {}),
        ...definitionFromOptions(checkType, options),
        ...defined({ name: options.name, runtimeId: options.runtime, maxResponseTime: options.maxMs }),
      };
      const run = await ctx.client().json(runSchema, 'POST', '/v1/checks/test', { body, timeoutMs: RUN_TIMEOUT_MS });
      ctx.out.result(run, () => printRun(ctx, run));
      if (run.result.hasFailures) throw new CliError('The check failed', EXIT_API);
    });
  example(
    test,
    'vigil checks test --file check.json',
    'vigil checks test --script checks/login.spec.ts',
    'vigil checks test --script checks/home.spec.ts --type PLAYWRIGHT --runtime 2025.04',
    'vigil checks test --files checks/shop-suite',
  );

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
