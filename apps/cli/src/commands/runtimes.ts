import type { Command } from 'commander';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { example } from '../kit.ts';
import { runtimeSchema } from '../schemas.ts';

type Runtime = z.infer<typeof runtimeSchema>;

export function registerRuntimes(program: Command): void {
  const runtimes = program.command('runtimes').description('runtime environments checks run in');
  example(runtimes, 'vigil runtimes ls');

  const ls = runtimes
    .command('ls', { isDefault: true })
    .description('list every runtime, newest first (the default: `vigil runtimes` alone lists them)')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.client().get(z.array(runtimeSchema), '/v1/runtimes');
      ctx.out.result(list, () =>
        ctx.out.table(list, [
          { header: 'NAME', value: (r: Runtime) => r.name },
          { header: 'STAGE', value: (r: Runtime) => r.stage },
          { header: 'NODE', value: (r: Runtime) => r.nodeJsVersion },
          { header: 'MULTI-STEP', value: (r: Runtime) => (r.multiStepSupport ? 'yes' : 'no') },
          { header: 'END OF LIFE', value: (r: Runtime) => r.runtimeEndOfLife },
        ]),
      );
    });
  example(ls, 'vigil runtimes ls');

  const get = runtimes
    .command('get')
    .description('show one runtime and its dependencies')
    .argument('<name>', 'runtime name, YYYY.MM')
    .action(async (name: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const runtime = await ctx.client().get(runtimeSchema, `/v1/runtimes/${encodeURIComponent(name)}`);
      ctx.out.result(runtime, () => {
        ctx.out.record([
          ['Name', runtime.name],
          ['Stage', runtime.stage],
          ['Node.js', runtime.nodeJsVersion],
          ['Multi-step', runtime.multiStepSupport ? 'yes' : 'no'],
          ['End of life', runtime.runtimeEndOfLife],
          ['Description', runtime.description],
        ]);
        ctx.out.print('');
        ctx.out.table(Object.entries(runtime.dependencies), [
          { header: 'DEPENDENCY', value: ([dependency]: [string, string]) => dependency },
          { header: 'VERSION', value: ([, version]: [string, string]) => version },
        ]);
      });
    });
  example(get, 'vigil runtimes get 2025.04');
}
