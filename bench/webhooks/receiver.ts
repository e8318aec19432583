/**
 * The webhooks bench's receiver, as its own process so it never shares an event loop with the
 * sender. Paths under /fail/ answer 500 the first time they see a webhook-id, 200 after.
 * GET /stats gives the counts; POST /reset clears them.
 *   node --import tsx bench/webhooks/receiver.ts <port>
 */
import { createServer } from 'node:http';

let stats = { received: 0, ok: 0, failed: 0, duplicates: 0, bytes: 0 };
let delivered = new Set<string>();
let failedOnce = new Set<string>();

createServer((request, response) => {
  let bytes = 0;
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    const url = request.url ?? '/';
    if (url === '/stats') return void response.end(JSON.stringify({ ...stats, distinct: delivered.size }));
    if (url === '/reset') {
      stats = { received: 0, ok: 0, failed: 0, duplicates: 0, bytes: 0 };
      delivered = new Set();
      failedOnce = new Set();
      return void response.end('{}');
    }
    stats.received++;
    stats.bytes += bytes;
    const id = String(request.headers['webhook-id'] ?? `anonymous-${stats.received}`);
    if (url.startsWith('/fail/') && !failedOnce.has(id)) {
      failedOnce.add(id);
      stats.failed++;
      response.statusCode = 500;
      return void response.end('first attempt fails');
    }
    stats.ok++;
    if (delivered.has(id)) stats.duplicates++;
    else delivered.add(id);
    response.end('ok');
  });
}).listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
