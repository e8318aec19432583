import { runApp } from '#platform';
import { loadProjectorConfig } from './config.ts';
import { startProjector } from './projector.ts';

await runApp('projector', loadProjectorConfig, {}, async (context) =>
  startProjector({
    ...context,
    batchSize: context.config.VIGIL_PROJECTION_BATCH_SIZE,
    // Read models that stop matching the event store while running: drain and exit, so the
    // orchestrator shows it instead of a process that looks healthy and applies nothing.
    onFatal: () => void context.lifecycle.stop().finally(() => process.exit(1)),
  }),
);
