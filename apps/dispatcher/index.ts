export { startDispatcher, DISPATCHER_FEED, DISPATCHER_GROUP } from './src/dispatcher.ts';
export { DISPATCHER_NODE_FLAGS } from './src/node-flags.ts';
export { dispatcherConfigSchema } from './src/config.ts';
