import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import type { ApiClient } from '../http.ts';
import { example, pageOptions, type PageOptions } from '../kit.ts';
import { fetchAll, fetchList } from '../paging.ts';
import { checkSchema, maintenanceWindowSchema, type MaintenanceWindow } from '../schemas.ts';
import { describeWhen } from '../window-times.ts';
import { registerWindowEdits, windowPath } from './maintenance-window-edit.ts';

/** `vigil maintenance-windows` (`mw`): planned quiet time for the checks a window covers. */
export function registerMaintenanceWindows(program: Command): void {
  const windows = program
    .command('maintenance-windows')
    .alias('mw')
    .description(
      'maintenance windows: times when the checks they cover skip their scheduled runs (or run without alerting)',
    );
  example(
    windows,
    'vigil mw create --name "Weekly deploy" --tag shop --starts-at 2026-12-01T23:00+01:00 --duration 30m --repeat-unit week',
    'vigil mw ls',
  );

  const ls = pageOptions(
    windows.command('ls').description('list maintenance windows, oldest first; times in UTC'),
  ).action(async (options: PageOptions, command: Command) => {
    const ctx = contextOf(command);
    const client = ctx.client();
    const list = await fetchList(client, '/v1/maintenance-windows', maintenanceWindowSchema, options);
    const names = await checkNames(client, list);
    ctx.out.result(list, () =>
      ctx.out.table(list, [
        { header: 'ID', value: (w) => w.id },
        { header: 'NAME', value: (w) => w.name },
        { header: 'WHEN', value: (w) => describeWhen(w) },
        { header: 'COVERS', value: (w) => coverage(w, names) },
        { header: 'PAUSES', value: (w) => pauses(w) },
        { header: 'ACTIVE NOW', value: (w) => (w.activeNow === true ? 'yes' : 'no') },
      ]),
    );
  });
  example(ls, 'vigil maintenance-windows ls', 'vigil mw ls --limit 10 --page 2', 'vigil mw ls --json');

  const get = windows
    .command('get')
    .description('show one maintenance window')
    .argument('<windowId>', 'window id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.client();
      const window = await client.get(maintenanceWindowSchema, windowPath(id));
      const names = await checkNames(client, [window]);
      ctx.out.result(window, () => {
        const { id: windowId, name, ...rest } = window;
        ctx.out.record([
          ['id', windowId],
          ['name', name],
          ['when', describeWhen(window)],
          ['covers', coverage(window, names)],
          ['pauses', pauses(window)],
          ...Object.entries(rest),
        ]);
      });
    });
  example(get, 'vigil maintenance-windows get 5c1e…');

  registerWindowEdits(windows);

  const remove = windows
    .command('delete')
    .alias('rm')
    .description('delete a maintenance window; the checks it covered run and alert as usual from now on')
    .argument('<windowId>', 'window id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.client().send('DELETE', windowPath(id));
      ctx.out.result({ deleted: id }, () => ctx.out.print(`Deleted maintenance window ${id}`));
    });
  example(remove, 'vigil maintenance-windows delete 5c1e…');
}

/** What a paused window stops: the runs themselves, or only the alerts of runs that still happen. */
function pauses(window: MaintenanceWindow): string {
  return window.pauseRuns ? 'runs' : 'alerts only';
}

/** `tags db, deploy; checks Orders API`: the check names when the account still has them, else their ids. */
export function coverage(window: MaintenanceWindow, names: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  if (window.tags.length > 0) parts.push(`tags ${window.tags.join(', ')}`);
  if (window.checkIds.length > 0) parts.push(`checks ${window.checkIds.map((id) => names.get(id) ?? id).join(', ')}`);
  return parts.join('; ');
}

/** Check names for the windows that list checks by id; none are fetched when no window does. */
async function checkNames(client: ApiClient, windows: readonly MaintenanceWindow[]): Promise<Map<string, string>> {
  if (!windows.some((w) => w.checkIds.length > 0)) return new Map();
  const checks = await fetchAll(client, '/v1/checks', checkSchema);
  return new Map(checks.map((c) => [c.id, c.name]));
}
