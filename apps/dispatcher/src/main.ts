import { runApp } from '#platform';
import { version } from '../../api/index.ts';
import { loadDispatcherConfig } from './config.ts';
import { startDispatcher } from './dispatcher.ts';

await runApp('dispatcher', loadDispatcherConfig, { bus: true }, (context) =>
  startDispatcher({ ...context, userAgent: `Vigil/${version}` }),
);
