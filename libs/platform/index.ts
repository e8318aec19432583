export { platformEnv, type PlatformConfig } from './env.ts';
export { createPlatform, type Platform, type PlatformNeeds } from './platform.ts';
