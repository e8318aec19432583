export { startDispatcher, DISPATCHER_FEED, DISPATCHER_GROUP } from './src/dispatcher.ts';
export { dispatcherConfigSchema } from './src/config.ts';
