import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxy, type ProxyServer } from 'proxy';

/**
 * A real forward proxy on loopback (the `proxy` package: absolute-URI requests relayed, CONNECT tunnels), as a
 * company's egress proxy is. It records every request it is asked to relay: `POST http://host:port/path` for plain
 * http, `CONNECT host:port` for a tunnel. With `credentials` it answers 407 to a request without them in
 * Proxy-Authorization (Basic).
 */
export class ForwardProxy {
  readonly seen: string[] = [];
  url = '';
  #server: ProxyServer | null = null;

  async start(credentials?: { user: string; password: string }): Promise<this> {
    const server = createProxy(createServer());
    const record = (req: IncomingMessage) => this.seen.push(`${req.method} ${req.url}`);
    // Listeners run in order: the record is made before the proxy relays.
    server.prependListener('request', record);
    server.prependListener('connect', record);
    if (credentials) {
      const expected = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
      server.authenticate = (req) => req.headers['proxy-authorization'] === expected;
    }
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** What it was asked to relay to `origin` (`http://127.0.0.1:1234`, or `localhost:1234` for tunnels). */
  to(origin: string): string[] {
    return this.seen.filter((s) => {
      const target = s.split(' ')[1] ?? '';
      return target === origin || target.startsWith(`${origin}/`);
    });
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}
