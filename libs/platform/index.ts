export {
  platformEnv,
  webhookEnv,
  runnerEnv,
  listenUrl,
  PRIVATE_TARGETS_SWITCH,
  checksMayReachPrivate,
  deliveriesMayReachPrivate,
  type PlatformConfig,
} from './env.ts';
export { createPlatform, type Platform, type PlatformNeeds, type Topics } from './platform.ts';
export { runApp, type AppContext } from './run-app.ts';
