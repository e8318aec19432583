/**
 * The webhooks bench as an entry of its own, for the bundle run.ts builds (scripts/build-server.mjs):
 *   node --max-semi-space-size=32 bench/results/bundle/webhooks-bench.js [options of run.ts]
 * It exits when the bench is done, as bench/run.ts does: what the bench started is stopped, but
 * not every client it used leaves the event loop empty.
 */
import { run } from './run.ts';

try {
  await run(process.argv.slice(2));
  process.exit(0);
} catch (error) {
  console.error(error);
  process.exit(1);
}
