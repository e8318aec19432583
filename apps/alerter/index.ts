export { startAlerter, ALERTER_GROUP } from './src/alerter.ts';
export { alerterConfigSchema } from './src/config.ts';
