// Runs inside `unshare -n` (a network namespace holding only loopback): listens on 127.0.0.1:<port>
// and carries each connection over a Unix socket to the Vigil under test, then runs the client
// command and exits with its status. The client can reach Vigil and nothing else.
// usage: node bridge.mjs <unix socket> <port> <command> [args…]
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [socketPath, port, command, ...args] = process.argv.slice(2);
const server = createServer((inbound) => {
  const outbound = connect(socketPath);
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
});
