import type { FastifyInstance } from 'fastify';
import type { Logger } from '#core';
import type { Platform } from '#platform';
import type { ReadModelInvalidation } from '#readmodels';
import type { ApiServices } from '../services/index.ts';
import { EventHub } from '../console/event-hub.ts';
import { PublicStatusPages } from '../console/public-status.ts';
import { StatusPageService } from '../console/status-page-service.ts';
import { StreamGuard } from '../console/stream-guard.ts';
import { checkResultArtifactRoutes } from './check-result-artifacts.ts';
import { checkResultReadRoutes } from './check-results-read.ts';
import { checkStatusRoutes } from './check-statuses.ts';
import { eventRoutes } from './events.ts';
import { publicStatusRoutes } from './public-status.ts';
import { sessionRoutes } from './session.ts';
import { statusPageRoutes } from './status-pages.ts';
import { webRoutes } from './web.ts';

/** What the console needs beyond the control plane: statuses, alerts, runs, live events, status pages, the app. */
export function consoleRoutes(
  app: FastifyInstance,
  deps: {
    services: ApiServices;
    platform: Platform;
    log: Logger;
    invalidation: ReadModelInvalidation;
    defaultLocation?: string;
  },
) {
  const { readModels, stateStore, commands } = deps.services;
  const analytics = deps.platform.analytics;
  sessionRoutes(app);
  checkStatusRoutes(app, { readModels, stateStore, analytics, defaultLocation: deps.defaultLocation });
  const hub = new EventHub(stateStore, deps.log.child({ component: 'events' }));
  // Revocations reach every replica as read-model invalidations; open streams re-check on each.
  const guard = new StreamGuard({
    readModels,
    changes: deps.invalidation,
    log: deps.log.child({ component: 'events' }),
  });
  app.addHook('onClose', async () => {
    hub.close();
    guard.close();
  });
  eventRoutes(app, { hub, guard });
  statusPageRoutes(app, new StatusPageService(commands, readModels, stateStore));
  if (analytics) {
    const { artifacts, artifactRetentionDays: retentionDays = 30 } = deps.platform;
    checkResultReadRoutes(app, { readModels, analytics, retentionDays });
    if (artifacts) checkResultArtifactRoutes(app, { readModels, analytics, artifacts, retentionDays });
    publicStatusRoutes(app, new PublicStatusPages({ readModels, stateStore, analytics, log: deps.log }));
  }
  webRoutes(app);
}
