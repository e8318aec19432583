export { addDnsRecords, services, uniqueSuffix } from './services.ts';
export type { ServiceEnv } from './global-setup.ts';
