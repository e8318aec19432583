// The loopback endpoint of the runner bench, in its own process so its CPU is not the runner's.
// With `count` (the replicas bench) it also records when each check's path was hit, and
// GET /__stats?from=&to= gives the runs of the one-minute windows in [from, to): distinct runs,
// repeated runs (a window hit twice, whichever replica ran it) and the delay after planned start.
import { createServer } from 'node:http';
import { offsetMs, windowStart } from '#scheduling';

const MIN = 60_000;
const port = Number(process.argv[2] ?? 0);
const counting = process.argv[3] === 'count';
const hits = new Map<string, number[]>();

function stats(from: number, to: number) {
  let runs = 0;
  let repeated = 0;
  const delays: number[] = [];
  for (const [checkId, times] of hits) {
    const offset = offsetMs(checkId, MIN);
    const seen = new Set<number>();
    for (const t of times) {
      const window = windowStart(t - offset, MIN);
      if (window < from || window >= to) continue;
      if (seen.has(window)) repeated += 1;
      else {
        seen.add(window);
        runs += 1;
        delays.push(t - window - offset);
      }
    }
  }
  delays.sort((a, b) => a - b);
  const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] ?? 0;
  return { runs, repeated, delayP50Ms: at(0.5), delayP99Ms: at(0.99) };
}

const server = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  const url = req.url ?? '/';
  if (counting && url.startsWith('/__stats')) {
    const query = new URL(url, 'http://x').searchParams;
    res.end(JSON.stringify(stats(Number(query.get('from')), Number(query.get('to')))));
    return;
  }
  if (counting) {
    const id = url.slice(1);
    const times = hits.get(id);
    if (times) times.push(Date.now());
    else hits.set(id, [Date.now()]);
  }
  res.end('{"status":"ok"}');
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
