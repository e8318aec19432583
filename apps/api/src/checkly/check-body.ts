import { z } from 'zod';

export const keyValue = z.object({
  key: z.string().max(1024),
  value: z.string().max(16_384),
  locked: z.boolean().nullish(),
});
export const assertion = z.object({
  source: z.string().max(64),
  property: z.string().max(1024).nullish(),
  comparison: z.string().max(64),
  target: z.string().max(4096).nullish(),
  // Checkly's editor state: accepted at its defaults, refused otherwise (Vigil cannot keep them).
  edit: z.boolean().nullish(),
  order: z.number().int().nullish(),
  arrayIndex: z.number().int().nullish(),
  arraySelector: z.number().int().nullish(),
  regex: z.string().max(1024).nullish(),
});
const request = z.object({
  method: z.string().max(16).nullish(),
  url: z.string().max(2048).nullish(),
  followRedirects: z.boolean().nullish(),
  skipSSL: z.boolean().nullish(),
  body: z.string().max(1_000_000).nullish(),
  bodyType: z.string().max(16).nullish(),
  headers: z.array(keyValue).max(100).nullish(),
  queryParameters: z.array(keyValue).max(100).nullish(),
  assertions: z.array(assertion).max(50).nullish(),
  basicAuth: z.object({ username: z.string().max(1024), password: z.string().max(1024) }).nullish(),
  ipFamily: z.string().max(8).nullish(),
  // TCP
  hostname: z.string().max(253).nullish(),
  port: z.number().int().nullish(),
  data: z.string().max(65_536).nullish(),
  // DNS
  query: z.string().max(253).nullish(),
  recordType: z.string().max(16).nullish(),
  nameServer: z.string().max(253).nullish(),
  protocol: z.string().max(8).nullish(),
});
const heartbeat = z.object({
  period: z.number().int().nullish(),
  periodUnit: z.string().max(16).nullish(),
  grace: z.number().int().nullish(),
  graceUnit: z.string().max(16).nullish(),
  pingToken: z.string().max(128).nullish(),
  pingUrl: z.string().max(2048).nullish(),
});
const alertSettings = z.object({
  escalationType: z.string().max(32).nullish(),
  runBasedEscalation: z.object({ failedRunThreshold: z.number().int().nullish() }).nullish(),
  timeBasedEscalation: z.object({ minutesFailingThreshold: z.number().int().nullish() }).nullish(),
  reminders: z.object({ amount: z.number().int().nullish(), interval: z.number().int().nullish() }).nullish(),
  parallelRunFailureThreshold: z
    .object({ enabled: z.boolean().nullish(), percentage: z.number().int().nullish() })
    .nullish(),
  sslCertificates: z.object({ enabled: z.boolean().nullish(), alertThreshold: z.number().int().nullish() }).nullish(),
});
export const retryStrategy = z.object({
  type: z.string().max(32),
  baseBackoffSeconds: z.number().int().nullish(),
  maxRetries: z.number().int().nullish(),
  maxDurationSeconds: z.number().int().nullish(),
  sameRegion: z.boolean().nullish(),
  onlyOn: z.array(z.string().max(64)).max(20).nullish(),
});

/** A check body as Checkly's SDK and CLI send it: every field the SDK's Check type marshals. */
export const checklyCheckBody = z.object({
  id: z.string().max(64).nullish(),
  name: z.string().max(2048),
  description: z.string().max(10_000).nullish(),
  checkType: z.string().max(32).nullish(),
  frequency: z.number().int().nullish(),
  frequencyOffset: z.number().int().nullish(),
  activated: z.boolean().nullish(),
  muted: z.boolean().nullish(),
  shouldFail: z.boolean().nullish(),
  runParallel: z.boolean().nullish(),
  locations: z.array(z.string().max(64)).max(50).nullish(),
  privateLocations: z.array(z.string().max(64)).max(50).nullish(),
  degradedResponseTime: z.number().int().nullish(),
  maxResponseTime: z.number().int().nullish(),
  script: z.string().nullish(),
  environmentVariables: z.array(z.unknown()).max(100).nullish(),
  tags: z.array(z.string().max(64)).max(100).nullish(),
  sslCheckDomain: z.string().max(255).nullish(),
  sslCheck: z.boolean().nullish(),
  doubleCheck: z.boolean().nullish(),
  setupSnippetId: z.number().int().nullish(),
  tearDownSnippetId: z.number().int().nullish(),
  localSetupScript: z.string().nullish(),
  localTearDownScript: z.string().nullish(),
  alertSettings: alertSettings.nullish(),
  useGlobalAlertSettings: z.boolean().nullish(),
  request: request.nullish(),
  heartbeat: heartbeat.nullish(),
  groupId: z.number().int().nullish(),
  groupOrder: z.number().int().nullish(),
  alertChannelSubscriptions: z
    .array(z.object({ alertChannelId: z.number().int(), activated: z.boolean().nullish() }))
    .max(100)
    .nullish(),
  runtimeId: z.string().max(64).nullish(),
  retryStrategy: retryStrategy.nullish(),
  triggerIncident: z.unknown().nullish(),
  // A PlaywrightCheck's suite fields (project-bundle.ts); other types refuse them.
  codeBundlePath: z.string().max(256).nullish(),
  browsers: z.array(z.string().max(32)).max(10).nullish(),
  cacheHash: z.string().max(256).nullish(),
  playwrightVersion: z.string().max(64).nullish(),
  testCommand: z.string().max(4096).nullish(),
  installCommand: z.string().max(4096).nullish(),
  workingDir: z.string().max(1024).nullish(),
  engine: z.string().max(64).nullish(),
  engineVersion: z.string().max(64).nullish(),
  // Read-only fields a client sends back from a GET: ignored.
  createdAt: z.string().max(64).nullish(),
  updatedAt: z.string().max(64).nullish(),
  created_at: z.string().max(64).nullish(),
  updated_at: z.string().max(64).nullish(),
});
export type ChecklyCheckBody = z.output<typeof checklyCheckBody>;
