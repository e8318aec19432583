import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { collect, defined } from '../input.ts';
import { example } from '../kit.ts';
import { loadProject, PROJECT_FILES } from '../project/load.ts';
import type { DeclaredCheck, ProjectFile } from '../project/schema.ts';
import { printRun, RUN_TIMEOUT_MS, runSchema, type Run } from './run-output.ts';

// Heartbeats wait for pings: there is nothing to run on demand.
const NOT_RUN = new Set(['HEARTBEAT']);
const CONCURRENCY = 4;

/** Replaces {{KEY}} with a value the file declares on the check's group: the group may not be deployed yet. */
function inline(value: unknown, variables: Map<string, string>): unknown {
  if (typeof value === 'string')
    return value.replace(
      /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g,
      (whole, key: string) => variables.get(key) ?? whole,
    );
  if (Array.isArray(value)) return value.map((item) => inline(item, variables));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(item, variables)]));
  return value;
}

/** The body of POST /v1/checks/test for a declared check: no markers, no group, the group's variables inlined. */
export function testBody(project: ProjectFile, check: DeclaredCheck): Record<string, unknown> {
  const { logicalId: _id, group, ...fields } = check;
  const declaredGroup = project.checkGroups.find((g) => g.logicalId === group);
  const raw = Array.isArray(declaredGroup?.environmentVariables) ? declaredGroup.environmentVariables : [];
  const variables = new Map<string, string>();
  for (const v of raw as Array<{ key?: unknown; value?: unknown }>)
    if (typeof v.key === 'string' && typeof v.value === 'string') variables.set(v.key, v.value);
  // A script reads variables from process.env; its text (which may well contain "{{") is sent as written.
  const { script, files, ...rest } = fields as Record<string, unknown>;
  return { ...(inline(rest, variables) as Record<string, unknown>), ...defined({ script, files }) };
}

const runnable = (check: DeclaredCheck) =>
  !NOT_RUN.has(check.checkType) &&
  [check.request, check.browser, check.script, check.files].some((definition) => definition !== undefined);

interface Outcome {
  logicalId: string;
  name: string;
  status: 'passed' | 'failed' | 'skipped' | 'error';
  run?: Run;
  error?: string;
}

export function registerProjectTest(program: Command): void {
  const test = program
    .command('test')
    .description(
      'run the checks of the project file once, through the runner, without deploying (exit code 1 when one fails)',
    )
    .option('--config <file>', `the project file (default: the first of ${PROJECT_FILES.join(', ')})`)
    .option('--check <logicalId>', 'only this check; repeat or separate with commas', collect)
    .action(async (options: { config?: string; check?: string[] }, command: Command) => {
      const ctx = contextOf(command);
      const { project } = await loadProject(options.config);
      const unknown = (options.check ?? []).filter((id) => !project.checks.some((c) => c.logicalId === id));
      if (unknown.length > 0) throw new UsageError(`--check: no check with logicalId ${unknown.join(', ')}`);
      const selected = project.checks.filter((c) => !options.check || options.check.includes(c.logicalId));
      const client = ctx.client();

      const outcomes: Outcome[] = new Array(selected.length);
      let next = 0;
      const worker = async () => {
        while (next < selected.length) {
          const index = next++;
          const check = selected[index]!;
          const base = { logicalId: check.logicalId, name: check.name };
          if (!runnable(check)) {
            outcomes[index] = {
              ...base,
              status: 'skipped',
              error: NOT_RUN.has(check.checkType)
                ? `${check.checkType} checks are not run by vigil test`
                : 'the check declares nothing to run (no request, browser, script or code)',
            };
            continue;
          }
          try {
            const run = await client.json(runSchema, 'POST', '/v1/checks/test', {
              body: testBody(project, check),
              timeoutMs: RUN_TIMEOUT_MS,
            });
            outcomes[index] = { ...base, status: run.result.hasFailures ? 'failed' : 'passed', run };
          } catch (error) {
            outcomes[index] = {
              ...base,
              status: 'error',
              error: error instanceof Error ? error.message : String(error),
            };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, selected.length) }, worker));

      const count = (status: Outcome['status']) => outcomes.filter((o) => o.status === status).length;
      const failed = count('failed') + count('error');
      ctx.out.result({ project: project.project, checks: outcomes }, () => {
        for (const outcome of outcomes) {
          ctx.out.print(`${outcome.logicalId} (${outcome.name})`);
          if (outcome.run) printRun(ctx, outcome.run);
          else ctx.out.print(`${outcome.status === 'skipped' ? 'SKIPPED' : 'ERROR'}: ${outcome.error}`);
          ctx.out.print('');
        }
        ctx.out.print(
          `${count('passed')} passed, ${failed} failed${count('skipped') > 0 ? `, ${count('skipped')} skipped` : ''}`,
        );
      });
      if (failed > 0) throw new CliError(`${failed} of ${selected.length} checks failed`);
    });
  example(test, 'vigil test', 'vigil test --check homepage,orders-api --config vigil.config.yaml');
}
