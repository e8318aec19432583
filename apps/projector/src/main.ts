import { runApp } from '#platform';
import { loadProjectorConfig } from './config.ts';
import { startProjector } from './projector.ts';

await runApp('projector', loadProjectorConfig, {}, async (context) =>
  startProjector({ ...context, batchSize: context.config.VIGIL_PROJECTION_BATCH_SIZE }),
);
