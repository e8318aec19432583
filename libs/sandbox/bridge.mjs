// Runs inside the sandbox with the runtime's own node, as the parent of the user's command. The
// sandbox's network namespace holds only loopback, so this listener is the one way out: each
// connection to 127.0.0.1:<port> is piped to the runner's egress proxy through the Unix socket
// bind-mounted at <socket>. Plain JavaScript on purpose: it runs on any runtime's node, with no loader.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [port, socketPath, ...command] = process.argv.slice(2);

const server = createServer((client) => {
  const upstream = connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
// An IP literal binds at once, so the command starts with the port already open.
server.listen(Number(port), '127.0.0.1');

const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
child.on('error', (error) => {
  process.stderr.write(`sandbox: cannot start ${command[0]}: ${error.message}\n`);
  process.exit(127);
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  server.close();
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
