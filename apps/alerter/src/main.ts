import { runApp } from '#platform';
import { startStatusConsumer } from '#readmodels';
import { startAlerter } from './alerter.ts';
import { loadAlerterConfig } from './config.ts';

await runApp('alerter', loadAlerterConfig, { bus: true }, async (context) => {
  await startAlerter(context);
  // The check-status and alert-history read models ride along in their own consumer group.
  const { platform, log, lifecycle } = context;
  await startStatusConsumer({ ...platform, bus: platform.bus!, log, lifecycle });
});
