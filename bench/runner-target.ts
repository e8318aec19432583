// The loopback endpoint of the runner bench, in its own process so its CPU is not the runner's.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const server = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"status":"ok"}');
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
