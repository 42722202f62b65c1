import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { NetGuardError, type CheckedTarget, type NetGuard } from '@aduana/shared';

export interface RefusedRequest {
  /** The destination as the browser asked for it: a URL for plain HTTP, `host:port` for a tunnel. */
  readonly destination: string;
  readonly reason: string;
}

export interface GuardProxyOptions {
  readonly guard: NetGuard;
  /** Time to open a connection to a checked destination. */
  readonly connectTimeoutMs: number;
  /** Most refusals remembered (the rest are only counted). */
  readonly maxRefusalsKept: number;
}

/** The proxy's own random Basic credential: the browser sends it, anything else on loopback gets 407. */
export interface ProxyCredential {
  readonly username: string;
  readonly password: string;
}

/** Marks the proxy's own refusal of a plain-HTTP request, so a refused page is told from a page that answered 403. */
export const REFUSED_HEADER = 'x-aduana-refused';

// Hop-by-hop headers (RFC 9110 §7.6.1) end at the proxy.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const PROXY_CHALLENGE = 'Basic realm="aduana-observation"';
const DENIED = `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: ${PROXY_CHALLENGE}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;

/**
 * The browser's only way out (docs/scanner.md, "Rendered-page observation"): an in-process forward proxy on an
 * ephemeral loopback port. Plain HTTP requests (absolute URI), CONNECT tunnels (HTTPS, secure WebSockets) and
 * upgraded plain WebSockets are each checked with the address guard and connected only to the address it checked,
 * so private, loopback and metadata destinations are refused whether they come from the page, a redirect, a
 * sub-resource, an iframe or a socket. Only a client with the proxy's random credential is served (407 otherwise). Redirects are passed back to the browser, whose next request comes here again.
 */
export class GuardProxy {
  readonly refused: RefusedRequest[] = [];
  refusedCount = 0;
  forwarded = 0;
  readonly #server: Server;
  readonly #options: GuardProxyOptions;
  readonly #sockets = new Set<Duplex>();
  readonly #expected: Buffer;
  #port = 0;
  /** Given to the browser (playwright's `proxy.username` / `proxy.password`); fresh for every proxy started. */
  readonly credential: ProxyCredential;

  private constructor(options: GuardProxyOptions) {
    this.#options = options;
    this.credential = { username: 'aduana', password: randomBytes(24).toString('base64url') };
    this.#expected = Buffer.from(`Basic ${Buffer.from(`${this.credential.username}:${this.credential.password}`).toString('base64')}`);
    this.#server = createServer((req, res) => void this.#forward(req, res));
    this.#server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.#tunnel(req, socket, head));
    this.#server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.#upgrade(req, socket, head));
    this.#server.on('connection', (socket: Socket) => this.#track(socket));
  }

  static async start(options: GuardProxyOptions): Promise<GuardProxy> {
    const proxy = new GuardProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', resolve);
    });
    proxy.#port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  /** `http://127.0.0.1:PORT`, for the browser's proxy setting. */
  get url(): string {
    return `http://127.0.0.1:${String(this.#port)}`;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /**
   * Whether the request carries this proxy's credential. The proxy listens on loopback while an observation runs:
   * without the check, any local process could use it to reach what the guard allows (docs/scanner.md).
   */
  #authorised(req: IncomingMessage): boolean {
    const given = Buffer.from(req.headers['proxy-authorization'] ?? '');
    return given.length === this.#expected.length && timingSafeEqual(given, this.#expected);
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.#authorised(req)) {
      res.writeHead(407, { 'proxy-authenticate': PROXY_CHALLENGE, connection: 'close', 'content-length': 0 }).end();
      return;
    }
    const destination = req.url ?? '';
    const target = await this.#check(destination);
    if (target === undefined) {
      res.writeHead(403, { 'content-type': 'text/plain', connection: 'close', [REFUSED_HEADER]: '1' }).end('refused by the scanner');
      return;
    }
    const address = target.addresses[0];
    if (address === undefined) return void res.writeHead(502).end();
    this.forwarded++;
    const upstream = httpRequest({
      host: address.address,
      family: address.family,
      port: Number(target.url.port || 80),
      method: req.method,
      path: `${target.url.pathname}${target.url.search}`,
      headers: { ...endToEnd(req.headers), host: target.url.host },
      setHost: false,
      timeout: this.#options.connectTimeoutMs,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timeout')));
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { connection: 'close' }).end();
      else res.destroy();
    });
    req.pipe(upstream);
  }

  async #tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.#track(client);
    if (!this.#authorised(req)) return void client.end(DENIED);
    const authority = req.url ?? '';
    const target = await this.#check(`http://${authority}/`, authority);
    if (target === undefined) {
      client.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    this.#open(target, client, (upstream) => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
    });
  }

  async #upgrade(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.#track(client);
    if (!this.#authorised(req)) return void client.end(DENIED);
    // A plain WebSocket sent to a proxy names its destination as an absolute ws: or http: URI.
    const target = await this.#check((req.url ?? '').replace(/^ws:/i, 'http:'));
    if (target === undefined) {
      client.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    this.#open(target, client, (upstream) => {
      const lines = [`${req.method ?? 'GET'} ${target.url.pathname}${target.url.search} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i] ?? '';
        if (!name.toLowerCase().startsWith('proxy-')) lines.push(`${name}: ${req.rawHeaders[i + 1] ?? ''}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
    });
  }

  #open(target: CheckedTarget, client: Duplex, ready: (upstream: Socket) => void): void {
    const address = target.addresses[0];
    if (address === undefined) return void client.destroy();
    this.forwarded++;
    const upstream = connect({ host: address.address, family: address.family, port: Number(target.url.port || 80), timeout: this.#options.connectTimeoutMs });
    this.#track(upstream);
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      ready(upstream);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('timeout', () => upstream.destroy());
    upstream.once('error', () => client.destroy());
    upstream.once('close', () => client.destroy());
    client.once('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
  }

  /** The guard's verdict; a refusal is recorded. The proxy's own listener is refused too (no loops through it). */
  async #check(url: string, shown = url): Promise<CheckedTarget | undefined> {
    try {
      const target = await this.#options.guard.check(url);
      const port = Number(target.url.port || (target.url.protocol === 'https:' ? 443 : 80));
      if (port === this.#port && target.addresses.some((a) => a.address === '127.0.0.1')) {
        throw new NetGuardError('blocked', 'the browser proxy itself', shown);
      }
      return target;
    } catch (error) {
      this.refusedCount++;
      if (this.refused.length < this.#options.maxRefusalsKept) {
        this.refused.push({ destination: shown.slice(0, 300), reason: error instanceof NetGuardError ? error.message : 'invalid destination' });
      }
      return undefined;
    }
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }
}

function endToEnd(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}
