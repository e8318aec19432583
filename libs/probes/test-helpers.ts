import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ProbeContext } from './types.ts';

// Test-only helpers shared by the probe suites (not exported from index.ts).

export function probeContext(overrides: Partial<ProbeContext> = {}): ProbeContext {
  return {
    resultId: '6f1f0b8e-0d3b-4a59-9a55-0c7c1a9e0001',
    accountId: '6f1f0b8e-0d3b-4a59-9a55-0c7c1a9e0002',
    checkId: '6f1f0b8e-0d3b-4a59-9a55-0c7c1a9e0003',
    location: 'local',
    startedAt: new Date('2026-01-02T03:04:05.000Z'),
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
    variables: {},
    secretValues: [],
    allowPrivate: true,
    timeoutMs: 10_000,
    ...overrides,
  };
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface TestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function track(server: http.Server | https.Server, protocol: string, host: string): Promise<TestServer> {
  return new Promise((resolve) => {
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `${protocol}://${host.includes(':') ? `[${host}]` : host}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function withBody(handler: Handler): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  };
}

export function httpServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  return track(http.createServer(withBody(handler)), 'http', host);
}

const run = promisify(execFile);

/** A self-signed certificate for localhost/127.0.0.1 that expires in `days` days, made with openssl. */
export async function selfSignedCertificate(days: number): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-probe-cert-'));
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      String(days),
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ]);
    return { key: await readFile(join(dir, 'key.pem'), 'utf8'), cert: await readFile(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function httpsServer(tls: { key: string; cert: string }, handler: Handler): Promise<TestServer> {
  return track(https.createServer(tls, withBody(handler)), 'https', '127.0.0.1');
}
