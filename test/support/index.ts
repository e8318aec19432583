export { addDnsRecords, distributedEnv, services, uniqueSuffix } from './services.ts';
export type { ServiceEnv } from './global-setup.ts';
export { decodePng, zipEntries, type DecodedPng } from './artifacts.ts';
export { seeded } from './random.ts';
