import type * as Undici from 'undici';
import { envHttpProxyAgent, fetch, Pool } from './undici-parts.js';

/** A company egress proxy, as configured ('' = not set). */
export interface EgressProxySettings {
  /** Proxy for https destinations (HTTPS_PROXY); when empty, `httpProxy` serves them too. */
  httpsProxy: string;
  /** Proxy for http destinations (HTTP_PROXY). */
  httpProxy: string;
  /** Destinations reached directly (NO_PROXY): hosts, `.domain` or `*.domain`, `host:port`, or `*`; comma- or space-separated. */
  noProxy: string;
}

/**
 * How this process's outbound HTTP leaves: straight to each destination, or through a company's egress proxy. Decided
 * once, at start-up. With no proxy set, the dispatchers handed out are what they were without this (a Pool per origin,
 * undici's default agent for `request`): no request pays for the choice. With one set, undici's EnvHttpProxyAgent
 * routes each request through the proxy (plain http as an absolute-URI request, https through a CONNECT tunnel), or
 * straight to a destination NO_PROXY names; the settings are handed to it here, so it never reads the environment.
 */
export class Egress {
  /** No proxy: every connection straight to its destination. */
  static readonly direct = new Egress({ httpsProxy: '', httpProxy: '', noProxy: '' });

  /** For `request(url, { dispatcher })` callers: undefined (undici's default agent) unless a proxy is set. */
  readonly dispatcher: Undici.Dispatcher | undefined;
  readonly #settings: EgressProxySettings | null;

  constructor(settings: EgressProxySettings) {
    const httpsProxy = proxyUrl('HTTPS_PROXY', settings.httpsProxy);
    const httpProxy = proxyUrl('HTTP_PROXY', settings.httpProxy);
    this.#settings = httpsProxy || httpProxy ? { httpsProxy, httpProxy, noProxy: settings.noProxy } : null;
    this.dispatcher = this.#settings ? envHttpProxyAgent(this.#settings) : undefined;
  }

  /** Whether a proxy is set (some destinations may still be reached directly, by NO_PROXY). */
  get proxied(): boolean {
    return this.#settings !== null;
  }

  /**
   * The keep-alive pool to one origin (a provider, an MCP server, the control plane), with `options` for its
   * connections: a Pool, or with a proxy set an EnvHttpProxyAgent whose pool to the origin has those options. Requests
   * through it must name their `origin` (a Pool ignores it). The caller closes it.
   */
  pool(origin: string, options: Undici.Pool.Options): Undici.Dispatcher {
    return this.#settings ? envHttpProxyAgent({ ...options, ...this.#settings }) : new Pool(origin, options);
  }

  /**
   * A `fetch` for a library that takes one (openid-client): undefined (the library's own, global fetch) unless a proxy
   * is set, else undici's fetch through the shared dispatcher.
   */
  get fetch(): ((input: string, init: RequestInit) => Promise<Response>) | undefined {
    const dispatcher = this.dispatcher;
    if (!dispatcher) return undefined;
    // undici's Response is the web's (the global one is undici's too): the cast only bridges the two declarations.
    return (input, init) => fetch(input, { ...(init as Parameters<typeof fetch>[1]), dispatcher }) as unknown as Promise<Response>;
  }

  /** Closes the shared dispatcher (the pools are their callers'). */
  async close(): Promise<void> {
    await this.dispatcher?.close();
  }
}

/**
 * A proxy setting as the URL undici takes: `http://[user:password@]host[:port]` or `https://…` (a TLS connection to
 * the proxy itself); a bare `host:port` is taken as http://, as curl and Go take it. '' stays ''. Throws naming the
 * setting (never echoing the value: it may hold a password) for anything else.
 */
export function proxyUrl(name: string, value: string): string {
  if (value === '') return '';
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`${name}: not a proxy URL (http://host:port)`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw new Error(`${name}: not an http:// or https:// proxy URL`);
  return withScheme;
}
