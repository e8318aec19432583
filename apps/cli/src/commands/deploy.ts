import { basename } from 'node:path';
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { projectSecret } from '../config.ts';
import { CliError, UsageError } from '../errors.ts';
import { example } from '../kit.ts';
import { missingSecrets } from '../project/channels.ts';
import { applyPlan } from '../project/apply.ts';
import { loadProject, PROJECT_FILES } from '../project/load.ts';
import { planDeploy } from '../project/plan.ts';
import { previewPlan, refusalLines } from '../project/preview.ts';
import { fetchRemote } from '../project/remote.ts';
import { planJson, renderPlan, summary, summaryLine } from '../project/render.ts';
import { registerProjectTest } from './project-test.ts';

const PAST = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/** `vigil deploy` (and `vigil test`): monitoring as code from a project file. */
export function registerDeploy(program: Command): void {
  const deploy = program
    .command('deploy')
    .description(
      'make the account match the project file: create, update and delete the checks, groups, channels, subscriptions and maintenance windows it declares',
    )
    .option('--config <file>', `the project file (default: the first of ${PROJECT_FILES.join(', ')})`)
    .option(
      '--preview',
      'print the plan (create / update / delete, field by field) and have the server check every change as deploy would apply it (a dry run); change nothing',
    )
    .action(async (options: { config?: string; preview?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const { path, project } = await loadProject(options.config);
      const client = ctx.client();
      const remote = await fetchRemote(client, project.project);
      const steps = planDeploy(project, remote);
      const header = `Project ${project.project} (${basename(path)}) on ${ctx.apiUrl}`;
      const nothing = `Nothing to change: the account matches ${basename(path)}`;
      // Checked before the first request that changes anything: a deploy never stops half-way for a variable.
      const missing = missingSecrets(steps, projectSecret);
      if (missing.length > 0 && !options.preview)
        throw new UsageError(
          `Secrets the plan needs are not set (nothing was changed):\n${missing.map((line) => `  ${line}`).join('\n')}`,
        );

      if (options.preview || steps.length === 0) {
        // The server decides each change as apply would (?dryRun=true) and writes nothing.
        const checked = steps.length > 0 ? await previewPlan(client, project.project, steps, remote) : undefined;
        const refused = checked?.refusals ?? [];
        const json = {
          project: project.project,
          file: path,
          plan: planJson(steps),
          summary: summary(steps),
          ...(checked
            ? {
                refusals: refused.map(({ step, status, message }) => ({ ...planJson([step])[0], status, message })),
                unchecked: checked.unchecked.map(({ step, reason }) => ({ ...planJson([step])[0], reason })),
              }
            : {}),
        };
        ctx.out.result(json, () => {
          ctx.out.print(header);
          if (steps.length === 0) return ctx.out.print(nothing);
          renderPlan(steps).forEach((line) => ctx.out.print(line));
          ctx.out.print(`Plan: ${summaryLine(steps)}${options.preview ? ' (preview: nothing was changed)' : ''}`);
        });
        for (const line of missing) ctx.out.warn(`${line}: deploy will need it`);
        for (const { step, reason } of checked?.unchecked ?? [])
          ctx.out.warn(`${step.action} ${step.kind} ${step.logicalId}: checked on deploy only (${reason})`);
        if (refused.length > 0)
          throw new CliError(
            `The server would refuse ${refused.length} of ${steps.length} changes (nothing was changed):\n` +
              refusalLines(checked!)
                .map((line) => `  ${line}`)
                .join('\n'),
          );
        return;
      }

      if (!ctx.out.json) {
        ctx.out.print(header);
        renderPlan(steps).forEach((line) => ctx.out.print(line));
      }
      // Every change is put to the server as a dry run first: what it would refuse stops the deploy
      // before anything is written, so a bad field never leaves the account half-deployed.
      const checked = await previewPlan(client, project.project, steps, remote);
      if (checked.refusals.length > 0)
        throw new CliError(
          `The server would refuse ${checked.refusals.length} of ${steps.length} changes (nothing was changed):\n` +
            refusalLines(checked)
              .map((line) => `  ${line}`)
              .join('\n'),
        );
      const applied = await applyPlan(client, project.project, steps, remote, ({ step, id }) => {
        if (!ctx.out.json) ctx.out.print(`✓ ${PAST[step.action]} ${step.kind} ${step.logicalId}: ${id}`);
      });
      const counts = summary(steps);
      ctx.out.result(
        {
          project: project.project,
          file: path,
          applied: applied.map(({ step, id }) => ({ ...planJson([step])[0], id })),
        },
        () => ctx.out.print(`Deployed: ${counts.create} created, ${counts.update} updated, ${counts.delete} deleted`),
      );
    });
  example(deploy, 'vigil deploy --preview', 'vigil deploy', 'vigil deploy --config monitoring/vigil.config.yaml');
  registerProjectTest(program);
}
