/**
 * The soak's webhook receiver, its own process so it never shares an event loop with what it
 * measures. POST /hook/* fails (500) about `failRate` of the time, at random, whatever the attempt:
 * the dispatcher's retries must still bring every webhook-id through. /target always answers 200
 * (the runner's checks point at it). GET /stats gives the counts, GET /ids the ids delivered.
 *   node --import tsx bench/soak/receiver.ts <port> <failRate>
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const failRate = Number(process.argv[3] ?? '0.1');
const stats = { received: 0, ok: 0, failed: 0, duplicates: 0, targetHits: 0 };
const delivered = new Set<string>();

createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const url = request.url ?? '/';
    if (request.method === 'GET' && url === '/stats')
      return void response.end(JSON.stringify({ ...stats, distinct: delivered.size }));
    if (request.method === 'GET' && url === '/ids') return void response.end(JSON.stringify([...delivered]));
    if (url.startsWith('/target')) {
      stats.targetHits++;
      response.setHeader('content-type', 'application/json');
      return void response.end('{"status":"ok"}');
    }
    if (!url.startsWith('/hook/')) {
      response.statusCode = 404;
      return void response.end();
    }
    stats.received++;
    const id = String(request.headers['webhook-id'] ?? '');
    if (Math.random() < failRate) {
      stats.failed++;
      response.statusCode = 500;
      return void response.end('failing on purpose');
    }
    stats.ok++;
    if (delivered.has(id)) stats.duplicates++;
    else delivered.add(id);
    response.end('ok');
  });
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
