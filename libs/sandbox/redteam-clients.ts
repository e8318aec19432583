// In-sandbox attack clients (CommonJS source text run with the runtime's node): raw bytes to the
// egress bridge on 127.0.0.1:3128, so no client library normalises what the attacker sends.
export const RAW_PROXY_CLIENT = `
const net = require('net');
const exchange = (bytes, until = 6000) => new Promise((resolve) => {
  const socket = net.connect(3128, '127.0.0.1', () => socket.write(bytes));
  let seen = '';
  const done = () => { socket.destroy(); resolve(seen); };
  socket.on('data', (chunk) => { seen += chunk.toString('latin1'); });
  socket.on('error', (e) => { seen += ' socket-error ' + e.code; done(); });
  socket.on('close', done);
  setTimeout(done, until);
});
const status = (text) => Number((/^HTTP\\/1\\.1 (\\d{3})/.exec(text) || [])[1] || 0);
/** CONNECT, and when a tunnel opens, a plain GET through it. */
const tunnel = (authority) => new Promise((resolve) => {
  const socket = net.connect(3128, '127.0.0.1', () =>
    socket.write('CONNECT ' + authority + ' HTTP/1.1\\r\\nHost: ' + authority + '\\r\\n\\r\\n'));
  let seen = ''; let opened = false;
  const done = () => { socket.destroy(); resolve({ what: 'CONNECT ' + authority, status: status(seen), text: seen.slice(0, 600) }); };
  socket.on('data', (chunk) => {
    seen += chunk.toString('latin1');
    if (!opened && status(seen) === 200 && seen.includes('\\r\\n\\r\\n')) {
      opened = true;
      socket.write('GET /leak HTTP/1.1\\r\\nHost: leak\\r\\nConnection: close\\r\\n\\r\\n');
    }
  });
  socket.on('error', done); socket.on('close', done);
  setTimeout(done, 6000);
});
const absolute = async (url, host) => {
  const text = await exchange('GET ' + url + ' HTTP/1.1\\r\\nHost: ' + (host || 'leak') + '\\r\\nConnection: close\\r\\n\\r\\n');
  return { what: 'GET ' + url, status: status(text), text: text.slice(0, 600) };
};
`;

/** Markers one sandbox plants and another looks for. */
export const PLANT = (marker: string, waitUrl: string, readyUrl: string) => `
const fs = require('fs'); const net = require('net');
fs.writeFileSync('/tmp/${marker}', 'tmp'); fs.writeFileSync('/dev/shm/${marker}', 'shm');
fs.writeFileSync('/work/${marker}', 'work');
process.title = '${marker}';
const abstract = net.createServer((s) => s.end('abstract-${marker}')).listen('\\0${marker}');
const tcp = net.createServer((s) => s.end('tcp-${marker}')).listen(4444, '127.0.0.1');
// Absolute-form by hand to the bridge: no client proxy logic (which differs between Node versions) in the way.
const get = (url) => new Promise((resolve, reject) => {
  const s = net.connect(3128, '127.0.0.1', () => s.write('GET ' + url + ' HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'));
  let t = ''; s.on('data', (c) => (t += c)); s.on('error', reject);
  s.on('close', () => (t.includes('target-ok') ? resolve() : reject(new Error(t.slice(0, 200)))));
});
(async () => {
  await get('${readyUrl}');
  await get('${waitUrl}');
  abstract.close(); tcp.close();
  console.log('planted and released');
})().catch((e) => { console.log('plant failed', e.message); process.exit(3); });
`;

// The marker is assembled at run time so this script's own command line never contains it.
export const LOOK = (marker: string) => `
const fs = require('fs'); const net = require('net');
const marker = ${JSON.stringify(marker.slice(0, 4))} + ${JSON.stringify(marker.slice(4))};
const out = {};
const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (e) { return e.code; } };
out.tmp = read('/tmp/' + marker); out.shm = read('/dev/shm/' + marker); out.work = read('/work/' + marker);
out.procs = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).map((pid) => read('/proc/' + pid + '/cmdline') + read('/proc/' + pid + '/comm'));
out.unix = read('/proc/net/unix');
const dial = (target) => new Promise((resolve) => {
  const s = net.connect(target, () => { let t = ''; s.on('data', (c) => (t += c)); s.on('end', () => resolve('connected ' + t)); });
  s.on('error', (e) => resolve(e.code));
  setTimeout(() => { s.destroy(); resolve('timeout'); }, 3000);
});
(async () => {
  out.abstract = await dial('\\0' + marker);
  out.tcp = await dial({ host: '127.0.0.1', port: 4444 });
  console.log(JSON.stringify(out));
})();
`;
