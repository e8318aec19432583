import { Option, type Command } from 'commander';
import type { ApiClient } from '../http.ts';
import { contextOf } from '../context.ts';
import { collect, defined, integer, readJsonObject } from '../input.ts';
import { example } from '../kit.ts';
import { checkSchema } from '../schemas.ts';
import { readScript, readSuite } from '../script-files.ts';
import { scriptOptions } from './checks-run.ts';

const path = (id: string) => `/v1/checks/${encodeURIComponent(id)}`;
const FREQUENCIES = ['1', '2', '5', '10', '15', '30', '60', '120', '180', '360', '720', '1440'];
// What a GET shows but a PUT does not take.
const READ_ONLY = ['id', 'accountId', 'createdAt', 'updatedAt', 'created_at', 'updated_at', 'version', 'revision'];

/** A check as PUT takes it: the GET answer without the fields the server owns. */
export function editable(check: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(check)) if (!READ_ONLY.includes(key) && value !== null) body[key] = value;
  if (typeof body.heartbeat === 'object' && body.heartbeat !== null) {
    const { pingToken: _token, pingUrl: _url, ...heartbeat } = body.heartbeat as Record<string, unknown>;
    body.heartbeat = heartbeat;
  }
  return body;
}

/** GET, change, PUT: the API replaces a check whole, so the fields not named keep their values. */
export async function patchCheck(
  client: ApiClient,
  id: string,
  changes: Record<string, unknown>,
  /** Fields to drop from the stored check (a script replaces a test project, and the other way round). */
  without: readonly string[] = [],
) {
  const current = (await client.get(checkSchema, path(id))) as Record<string, unknown>;
  const body = { ...editable(current), ...changes };
  for (const field of without) delete body[field];
  return (await client.json(checkSchema, 'PUT', path(id), { body })) as Record<string, unknown> & {
    id: string;
    name: string;
  };
}

interface UpdateOptions {
  name?: string;
  frequency?: string;
  tag?: string[];
  location?: string[];
  group?: string;
  degradedMs?: number;
  maxMs?: number;
  data?: string;
  script?: string;
  files?: string;
  runtime?: string;
}

export function registerCheckManagement(checks: Command): void {
  const update = scriptOptions(checks.command('update'))
    .description('change some fields of a check; the others keep their values')
    .argument('<checkId>', 'check id')
    .option('--name <name>', 'check name')
    .addOption(new Option('--frequency <minutes>', 'run every n minutes').choices(FREQUENCIES))
    .option('--tag <tag>', 'tags (replace the current ones); repeat or separate with commas', collect)
    .option('--location <location>', 'run locations (replace the current ones)', collect)
    .option('--group <groupId>', 'the check group it belongs to')
    .option('--degraded-ms <ms>', 'degraded above this response time', integer(0, 240_000))
    .option('--max-ms <ms>', 'failed above this response time (a script check: its budget)', integer(0, 240_000))
    .option('--runtime <runtimeId>', 'the runtime a script runs in, YYYY.MM')
    .option('--data <json>', 'fields to change as JSON, @file or - (standard input)')
    .action(async (id: string, options: UpdateOptions, command: Command) => {
      const ctx = contextOf(command);
      const changes = {
        ...(await readJsonObject(options.data)),
        ...defined({
          name: options.name,
          frequency: options.frequency === undefined ? undefined : Number(options.frequency),
          tags: options.tag,
          locations: options.location,
          groupId: options.group,
          degradedResponseTime: options.degradedMs,
          maxResponseTime: options.maxMs,
          runtimeId: options.runtime,
          script: options.script === undefined ? undefined : readScript(options.script, '--script'),
          files: options.files === undefined ? undefined : readSuite(options.files, '--files'),
        }),
      };
      const without = options.script !== undefined ? ['files'] : options.files !== undefined ? ['script'] : [];
      const updated = await patchCheck(ctx.client(), id, changes, without);
      ctx.out.result(updated, () => ctx.out.print(`Updated check ${updated.name}: ${updated.id}`));
    });
  example(
    update,
    'vigil checks update 0b8c… --frequency 5 --tag prod,api',
    'vigil checks update 0b8c… --data @patch.json',
    'vigil checks update 0b8c… --script checks/login.spec.ts',
  );

  const toggles: Array<[string, string, Record<string, boolean>, string]> = [
    ['mute', 'send no alerts for this check (it keeps running)', { muted: true }, 'Muted'],
    ['unmute', 'send alerts for this check again (nothing fires retroactively)', { muted: false }, 'Unmuted'],
    ['activate', 'run this check again', { activated: true }, 'Activated'],
    ['deactivate', 'stop running this check (it keeps its settings and results)', { activated: false }, 'Deactivated'],
  ];
  for (const [name, description, change, done] of toggles) {
    const command = checks
      .command(name)
      .description(description)
      .argument('<checkId>', 'check id')
      .action(async (id: string, _options: unknown, cmd: Command) => {
        const ctx = contextOf(cmd);
        const updated = await patchCheck(ctx.client(), id, change);
        ctx.out.result(updated, () => ctx.out.print(`${done} check ${updated.name}: ${updated.id}`));
      });
    example(command, `vigil checks ${name} 0b8c…`);
  }
}
