import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Logger } from '#core';
import { createHttpServer } from '#http';
import type { CheckLookup, ResultSink } from '#pipeline';
import type { Platform } from '#platform';
import type { ReadModelInvalidation } from '#readmodels';
import type { ApiConfig } from './config.ts';
import { installAuth } from './plugins/auth.ts';
import { installDryRun } from './plugins/dry-run.ts';
import { installIdempotency } from './plugins/idempotency.ts';
import { createDocumentPatch, describeRoute } from './plugins/route-docs.ts';
import { createRateLimiter } from './plugins/rate-limit.ts';
import { checklyRoutes } from './checkly/index.ts';
import { accountRoutes } from './routes/accounts.ts';
import { agentRoutes } from './routes/agent.ts';
import { alertChannelRoutes, type ChannelRouteDeps } from './routes/alert-channels.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { createApiCheckWindow } from './analytics/check-window.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { checkRoutes } from './routes/checks.ts';
import { checkResultRoutes } from './routes/check-results.ts';
import { checkRunRoutes } from './routes/check-runs.ts';
import { checkTriggerRoutes } from './routes/check-triggers.ts';
import { CheckTriggerService } from './services/check-triggers.ts';
import { groupTriggerRoutes } from './routes/group-triggers.ts';
import { GroupTriggerService } from './services/group-triggers.ts';
import { consoleRoutes } from './routes/console.ts';
import { maintenanceWindowRoutes } from './routes/maintenance-windows.ts';
import { pingRoutes } from './routes/ping.ts';
import { privateLocationRoutes } from './routes/private-locations.ts';
import { runtimeRoutes } from './routes/runtimes.ts';
import { userRoutes } from './routes/users.ts';
import { variableRoutes } from './routes/variables.ts';
import { whoamiRoutes } from './routes/whoami.ts';
import type { CheckRunService } from './services/check-runs.ts';
import type { HeartbeatService } from './services/heartbeats.ts';
import { AgentWork } from './services/agent-work.ts';
import { MaintenanceWindowService } from './services/maintenance-windows.ts';
import type { ApiServices } from './services/index.ts';
import { version } from './version.ts';

export interface ApiDeps {
  config: ApiConfig;
  log: Logger;
  platform: Platform;
  metrics: Registry;
  services: ApiServices;
  adminKeyHash: () => Promise<string | null>;
  ingestKeyHash: string | null;
  ingest: { lookup: CheckLookup; sink: ResultSink };
  alerting: Omit<ChannelRouteDeps, 'services'>;
  runs: CheckRunService;
  heartbeats: HeartbeatService;
  /** Read-model change announcements (revocations among them), on every replica. */
  invalidation: ReadModelInvalidation;
}

/** Rate-limit buckets with their own per-minute limits; the spec sets multistep analytics at 30. */
export const bucketLimits = { 'analytics-multistep': 30 };

/** Builds the fastify instance with every route; listening is server.ts's job. */
export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  const app = await createHttpServer({
    log: deps.log,
    title: 'Vigil API',
    version,
    description:
      'Monitoring backend: accounts, keys, variables, runtimes, checks, analytics and webhook alert channels.',
    readiness: deps.platform.readiness,
    metrics: deps.metrics,
    bodyLimit: deps.config.VIGIL_BODY_LIMIT_BYTES,
    describeRoute,
    patchDocument: createDocumentPatch(
      deps.services.runtimes.runtimes.filter((runtime) => runtime.stage !== 'REMOVED').map((runtime) => runtime.name),
      deps.services.locations.publicLocations,
    ),
  });
  installAuth(app, {
    readModels: deps.services.readModels,
    adminKeyHash: deps.adminKeyHash,
    ingestKeyHash: deps.ingestKeyHash,
    rateLimiter: createRateLimiter(deps.platform.stateStore),
    defaultLimitPerMinute: deps.config.VIGIL_RATE_LIMIT_PER_MINUTE,
    bucketLimits,
  });
  installIdempotency(app, deps.platform.stateStore, deps.services.box);
  installDryRun(app);

  accountRoutes(app, deps.services);
  userRoutes(app, deps.services);
  apiKeyRoutes(app, deps.services);
  whoamiRoutes(app, deps.services);
  variableRoutes(app, deps.services);
  runtimeRoutes(app, deps.services);
  checkRoutes(app, deps.services);
  if (deps.platform.analytics)
    analyticsRoutes(app, {
      readModels: deps.services.readModels,
      analytics: deps.platform.analytics,
      stateStore: deps.platform.stateStore,
      window: createApiCheckWindow({
        analytics: deps.platform.analytics,
        stateStore: deps.platform.stateStore,
        maxRows: deps.config.VIGIL_ANALYTICS_WINDOW_ROWS,
        registry: deps.metrics,
        log: deps.log.child({ component: 'check-window' }),
      }),
    });
  checkResultRoutes(app, deps.ingest);
  checkRunRoutes(app, { runs: deps.runs, checks: deps.services.checks });
  const triggers = new CheckTriggerService(
    deps.services.commands,
    deps.services.readModels,
    deps.services.checks,
    deps.runs,
    createRateLimiter(deps.platform.stateStore),
    deps.config.VIGIL_TRIGGER_RATE_PER_MINUTE,
  );
  checkTriggerRoutes(app, { triggers, publicUrl: deps.alerting.publicUrl });
  const groupTriggers = new GroupTriggerService(
    deps.services.commands,
    deps.services.readModels,
    deps.services.checks,
    deps.runs,
    createRateLimiter(deps.platform.stateStore),
    deps.config.VIGIL_TRIGGER_RATE_PER_MINUTE,
  );
  groupTriggerRoutes(app, { triggers: groupTriggers, publicUrl: deps.alerting.publicUrl });
  pingRoutes(app, deps.heartbeats);
  alertChannelRoutes(app, { services: deps.services, ...deps.alerting });
  const { commands, readModels, stateStore } = deps.services;
  maintenanceWindowRoutes(app, new MaintenanceWindowService(commands, readModels, stateStore));
  privateLocationRoutes(app, deps.services.privateLocations);
  agentRoutes(app, {
    work: new AgentWork(stateStore, readModels, deps.services.box, deps.ingest.sink, deps.config.VIGIL_AGENT_LEASE_MS),
    locations: deps.services.privateLocations,
    rateLimiter: createRateLimiter(stateStore),
    limitPerMinute: deps.config.VIGIL_AGENT_RATE_LIMIT_PER_MINUTE,
  });
  await checklyRoutes(app, {
    services: deps.services,
    analytics: deps.platform.analytics,
    channels: deps.alerting.channels,
    publicUrl: deps.alerting.publicUrl,
    triggers,
    groupTriggers,
  });
  consoleRoutes(app, {
    services: deps.services,
    platform: deps.platform,
    log: deps.log,
    invalidation: deps.invalidation,
    defaultLocation: deps.config.VIGIL_RUNNER_DEFAULT_LOCATION,
  });
  return app;
}
