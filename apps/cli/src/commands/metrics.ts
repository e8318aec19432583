import type { Command } from 'commander';
import { shortCheckType } from '../check-types.ts';
import { contextOf } from '../context.ts';
import { example } from '../kit.ts';
import { metricsCatalogueSchema } from '../schemas.ts';

export function registerMetrics(program: Command): void {
  const metrics = program
    .command('metrics')
    .description('the catalogue of metrics for a check type')
    .argument('<checkType>', 'api, url, tcp, browser, heartbeat, multistep, dns or playwright', shortCheckType)
    .option('--category <category>', 'response_time, success_rate, volume, core_web_vitals, heartbeat or performance')
    .option('--thresholds', 'include the good / needs-improvement thresholds')
    .option('--summary', 'the summary format instead of the detailed one')
    .action(async (checkType: string, options: { category?: string; thresholds?: boolean; summary?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const catalogue = await ctx.client().get(metricsCatalogueSchema, `/v1/analytics/metrics/${checkType}`, {
        category: options.category,
        includeThresholds: options.thresholds ? true : undefined,
        format: options.summary ? 'summary' : undefined,
      });
      const rows = Object.entries(catalogue.data).flatMap(([group, list]) => list.map((metric) => ({ group: group.replace(/Metrics$/, ''), ...metric })));
      ctx.out.result(catalogue, () => {
        type Row = (typeof rows)[number] & Record<string, unknown>;
        ctx.out.table(rows as Row[], [
          { header: 'GROUP', value: (m) => m.group },
          { header: 'NAME', value: (m) => m.name },
          { header: 'UNIT', value: (m) => m.unit },
          ...(options.thresholds
            ? [
                { header: 'GOOD', value: (m: Row) => m.goodThreshold },
                { header: 'NEEDS IMPROVEMENT', value: (m: Row) => m.needsImprovementThreshold },
              ]
            : []),
          { header: 'DESCRIPTION', value: (m) => m.description },
        ]);
      });
    });
  example(metrics, 'vigil metrics api', 'vigil metrics browser --category core_web_vitals --thresholds');
}
