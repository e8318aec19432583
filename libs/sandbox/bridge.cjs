'use strict';
/* global require, module */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS so `node --require` preloads it on any runtime */
// The sandbox's network namespace holds only loopback, so this listener on 127.0.0.1:3128 is the one
// way out: each connection is piped to the runner's egress proxy through the Unix socket bind-mounted
// at /.vigil/proxy.sock. Plain CommonJS on purpose: it runs on any runtime's node, with no loader.
//
// Two ways in: preloaded (`node --require /.vigil/bridge.cjs script`) it bridges inside the
// script's own process at no extra start-up cost, unref'd so it never keeps the script alive;
// run as a program (`node /.vigil/bridge.cjs cmd args…`) it bridges and runs a non-node command.
const { spawn } = require('node:child_process');
const { connect, createServer } = require('node:net');

const PORT = 3128;
const SOCKET = '/.vigil/proxy.sock';

function bridge(inProcess) {
  const server = createServer((client) => {
    const upstream = connect(SOCKET);
    if (inProcess) {
      client.unref();
      upstream.unref();
    }
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  // A child node process of the script finds the port taken by its parent's bridge: that one serves it.
  server.on('error', () => undefined);
  // An IP literal binds at once, before the script's first line runs.
  server.listen(PORT, '127.0.0.1');
  if (inProcess) server.unref();
  return server;
}

if (require.main === module) {
  const server = bridge(false);
  const [file, ...args] = process.argv.slice(2);
  const child = spawn(file, args, { stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write(`sandbox: cannot start ${file}: ${error.message}\n`);
    process.exit(127);
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    server.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code === null ? 1 : code);
  });
} else {
  bridge(true);
}
