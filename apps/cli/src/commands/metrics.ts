import { Option, type Command } from 'commander';
import { shortCheckType } from '../check-types.ts';
import { contextOf } from '../context.ts';
import { example } from '../kit.ts';
import { metricsCatalogueSchema } from '../schemas.ts';

const CATEGORIES = ['response_time', 'success_rate', 'volume', 'core_web_vitals', 'heartbeat', 'performance'];

export function registerMetrics(program: Command): void {
  const metrics = program
    .command('metrics')
    .description('the catalogue of metrics for a check type')
    .argument('<checkType>', 'api, url, tcp, browser, heartbeat, multistep, dns or playwright', shortCheckType)
    .addOption(new Option('--category <category>', 'only the metrics of this category').choices(CATEGORIES))
    .option('--thresholds', 'include the good / needs-improvement thresholds and guideline bands')
    .option('--summary', 'the summary format instead of the detailed one')
    .action(
      async (
        checkType: string,
        options: { category?: string; thresholds?: boolean; summary?: boolean },
        command: Command,
      ) => {
        const ctx = contextOf(command);
        const catalogue = await ctx.client().get(metricsCatalogueSchema, `/v1/analytics/metrics/${checkType}`, {
          category: options.category,
          // The API includes the thresholds unless told not to; the flag decides, for --json too.
          includeThresholds: options.thresholds === true,
          format: options.summary ? 'summary' : undefined,
        });
        const rows = Object.entries(catalogue.data).flatMap(([group, list]) =>
          list.map((metric) => ({ group: group.replace(/Metrics$/, ''), ...metric })),
        );
        ctx.out.result(catalogue, () => {
          type Row = (typeof rows)[number] & Record<string, unknown>;
          ctx.out.table(rows as Row[], [
            { header: 'GROUP', value: (m) => m.group },
            { header: 'NAME', value: (m) => m.name },
            { header: 'UNIT', value: (m) => m.unit },
            // The name to pass to `vigil analytics --metrics` for this check type, when there is one.
            { header: 'ANALYTICS', value: (m) => m.analyticsMetric },
            ...(options.thresholds
              ? [
                  { header: 'GOOD', value: (m: Row) => m.goodThreshold },
                  { header: 'NEEDS IMPROVEMENT', value: (m: Row) => m.needsImprovementThreshold },
                ]
              : []),
            { header: 'DESCRIPTION', value: (m) => m.description },
          ]);
        });
      },
    );
  example(metrics, 'vigil metrics api', 'vigil metrics browser --category core_web_vitals --thresholds');
}
