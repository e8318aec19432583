import type { FastifyInstance } from 'fastify';
import type { AnalyticsStore } from '#analytics';
import { StatusPageService } from '../console/status-page-service.ts';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import { runtimeRoutes } from '../routes/runtimes.ts';
import { variableRoutes } from '../routes/variables.ts';
import { accountRoutes } from './accounts.ts';
import { checkReadRoutes } from './checks-read.ts';
import { checkWriteRoutes } from './checks-write.ts';
import { groupWriteRoutes } from './group-write.ts';
import { channelWriteRoutes } from './channel-write.ts';
import { maintenanceWindowRoutes } from './maintenance-windows.ts';
import { privateLocationRoutes } from './private-locations.ts';
import { projectRoutes } from './projects.ts';
import { MaintenanceWindowService } from '../services/maintenance-windows.ts';
import { resourceReadRoutes } from './resources-read.ts';
import { resultReadRoutes } from './results-read.ts';
import { triggerRoutes } from './triggers.ts';
import { groupTriggerRoutes } from './group-triggers.ts';
import { unsupportedRoutes } from './unsupported.ts';
import type { CheckTriggerService } from '../services/check-triggers.ts';
import type { GroupTriggerService } from '../services/group-triggers.ts';

/** Where Checkly's clients point: CHECKLY_API_URL=http://host:port/checkly, or the provider's api_url. */
export const CHECKLY_PREFIX = '/checkly';
export const CHECKLY_ACCOUNT_HEADER = 'x-checkly-account';

/**
 * Checkly's dialect of the API, for Checkly's own CLI and Go SDK: one adapter at the edge under
 * /checkly. Its routes translate into the same services and read models as /v1 and keep no data
 * of their own. Every route here names the account with X-Checkly-Account (same keys and roles as
 * /v1), and is left out of /openapi.json, which documents Vigil's own API.
 */
export interface ChecklyDeps {
  services: ApiServices;
  analytics: AnalyticsStore | undefined;
  channels: ChannelService;
  publicUrl: string;
  triggers: CheckTriggerService;
  groupTriggers: GroupTriggerService;
}

export async function checklyRoutes(app: FastifyInstance, deps: ChecklyDeps): Promise<void> {
  const { services } = deps;
  const statusPages = new StatusPageService(services.commands, services.readModels, services.stateStore);
  const windows = new MaintenanceWindowService(services.commands, services.readModels, services.stateStore);
  await app.register(
    async (scope) => {
      scope.addHook('onRoute', (route) => {
        route.config = { ...route.config, accountHeader: CHECKLY_ACCOUNT_HEADER };
        route.schema = { ...route.schema, hide: true };
      });
      // Families whose /v1 shape already is Checkly's: the same route modules, under the prefix.
      variableRoutes(scope, services);
      runtimeRoutes(scope, services);
      accountRoutes(scope, services);
      checkReadRoutes(scope, services, deps.analytics);
      resultReadRoutes(scope, services, deps.analytics);
      checkWriteRoutes(scope, services, deps.channels);
      groupWriteRoutes(scope, services, deps.channels);
      channelWriteRoutes(scope, services, deps.channels);
      privateLocationRoutes(scope, services.privateLocations);
      maintenanceWindowRoutes(scope, windows);
      projectRoutes(scope, services, deps.channels, windows);
      resourceReadRoutes(scope, { ...deps, statusPages });
      triggerRoutes(scope, deps.triggers);
      groupTriggerRoutes(scope, { services, triggers: deps.groupTriggers });
      // Its own scope, so its catch-all body parser reaches no other route.
      await scope.register(unsupportedRoutes);
    },
    { prefix: CHECKLY_PREFIX },
  );
}
