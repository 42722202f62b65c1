import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SelfSignedCert } from '../../../shared/test/helpers/self-signed-cert.js';

/**
 * Test support: a local fixture site on an ephemeral loopback port that records what reached it, so tests can
 * assert what was sent (headers, cookies) and that a refused destination was never connected to.
 */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface FixtureServer {
  /** `http://127.0.0.1:PORT` (or https, or the host given), no trailing slash. */
  readonly origin: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export async function startFixture(handler: Handler, options: { host?: string; tls?: SelfSignedCert } = {}): Promise<FixtureServer> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const record: Handler = (req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    handler(req, res);
  };
  const server: Server = options.tls === undefined ? createServer(record) : createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, record);
  let connections = 0;
  server.on('connection', () => connections++); // TCP accepts, TLS handshake or not
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${options.tls === undefined ? 'http' : 'https'}://${host}:${String(port)}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
