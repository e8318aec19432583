import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Local HTTP and HTTPS (self-signed, for localhost and 127.0.0.1) targets for the sandbox's tests. */
export interface Targets {
  httpPort: number;
  httpsPort: number;
  /** PEM of the HTTPS target's self-signed certificate. */
  ca: string;
  close(): Promise<void>;
}

export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Answers every request with "<scheme> <method> <path> host=<Host>" so a test sees what arrived. */
export async function startTargets(): Promise<Targets> {
  const { key, cert } = selfSignedCert();
  const handler = (scheme: string) => (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url?.startsWith('/big/')) {
        res.end(Buffer.alloc(Number(req.url.slice(5)), 'x'));
        return;
      }
      res.setHeader('content-type', 'text/plain');
      res.end(`${scheme} ${req.method} ${req.url} host=${req.headers.host} body=${Buffer.concat(chunks).toString()}`);
    });
  };
  const plain = createServer(handler('http'));
  const secure = createHttpsServer({ key, cert }, handler('https'));
  const listen = (server: Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
  const [httpPort, httpsPort] = [await listen(plain), await listen(secure)];
  return {
    httpPort,
    httpsPort,
    ca: cert,
    close: async () => {
      for (const server of [plain, secure]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
