export { startDispatcher, DISPATCHER_GROUP } from './src/dispatcher.ts';
export { dispatcherConfigSchema } from './src/config.ts';
