import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export interface Hop {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** An HTTP client that keeps cookies per origin (host and port) and follows redirects by hand, as a browser would. */
export class CookieClient {
  readonly jar = new Map<string, Map<string, string>>();

  cookies(url: string): Map<string, string> {
    const origin = new URL(url).origin;
    let c = this.jar.get(origin);
    if (!c) this.jar.set(origin, (c = new Map()));
    return c;
  }

  async get(url: string): Promise<Hop> {
    const jar = this.cookies(url);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(url, { method: 'GET', headers: cookie ? { cookie } : {} });
    const text = await res.body.text();
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const eq = (pair as string).indexOf('=');
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return { url, status: res.statusCode, headers: res.headers, text };
  }

  /** Follows redirects from `url` until one points at `stopAt` (returned, not fetched) or an answer is not a redirect. */
  async follow(url: string, stopAt: string, maxHops = 12): Promise<{ stopped: string | null; last: Hop }> {
    let next = url;
    for (let i = 0; i < maxHops; i++) {
      if (next.startsWith(stopAt)) return { stopped: next, last: { url: next, status: 0, headers: {}, text: '' } };
      const hop = await this.get(next);
      const location = hop.headers.location;
      if (hop.status < 300 || hop.status >= 400 || typeof location !== 'string') return { stopped: null, last: hop };
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects');
  }
}

/** A loopback port free right now (the authentication service's callback URL must be known before it starts). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}
