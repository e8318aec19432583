export { platformEnv, webhookEnv, runnerEnv, listenUrl, type PlatformConfig } from './env.ts';
export { createPlatform, type Platform, type PlatformNeeds, type Topics } from './platform.ts';
export { runApp, type AppContext } from './run-app.ts';
