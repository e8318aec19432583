import { runApp } from '#platform';
import { startRunnerApp } from './app.ts';
import { loadRunnerConfig } from './config.ts';

// With Kafka the ingestor writes the analytics store; the embedded path writes it from here.
let distributed = false;
try {
  distributed = loadRunnerConfig().KAFKA_BROKERS !== undefined;
} catch {
  // runApp parses again and reports the bad variable.
}

await runApp('runner', loadRunnerConfig, { bus: true, analytics: !distributed }, async (context) => {
  await startRunnerApp(context).ready;
});
