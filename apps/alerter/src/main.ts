import { runApp } from '#platform';
import { startAlerter } from './alerter.ts';
import { loadAlerterConfig } from './config.ts';

await runApp('alerter', loadAlerterConfig, { bus: true }, (context) => startAlerter(context));
