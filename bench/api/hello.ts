/**
 * The api bench's baseline: a bare hello endpoint, as its own process like Vigil.
 *   node --import tsx bench/api/hello.ts <http|fastify> <port>
 */
import { createServer } from 'node:http';
import Fastify from 'fastify';

const [kind, port] = process.argv.slice(2);
const body = JSON.stringify({ hello: 'world' });
if (kind === 'fastify') {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  await app.listen({ port: Number(port), host: '127.0.0.1' });
} else {
  createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  }).listen(Number(port), '127.0.0.1');
}
process.on('SIGTERM', () => process.exit(0));
