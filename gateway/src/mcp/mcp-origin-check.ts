import { isIPv4 } from 'node:net';

/**
 * The MCP transport's defence against DNS rebinding (a web page whose name the attacker points at the gateway's
 * address, so that a browser sends it requests as the page's own origin): a request carrying an `Origin` must come
 * from an allowed origin (MCP_ALLOWED_ORIGINS) or from the gateway's own (an Origin whose host and port are the
 * request's Host); and where the gateway listens on loopback only, the request's `Host` must name loopback, as a
 * rebound page's never does. A request without an Origin (SDKs, non-browser clients) is judged on its Host alone.
 * Built once at start; a request pays a header comparison, and a URL parse only for an Origin not in the list.
 */
export class McpOriginCheck {
  constructor(
    private readonly allowed: ReadonlySet<string>,
    /** The gateway listens on a loopback address: every request's Host must name loopback. */
    private readonly loopbackOnly: boolean,
  ) {}

  /** From the settings: HOST (the listening address) and MCP_ALLOWED_ORIGINS. */
  static fromSettings(listenHost: string, allowedOrigins: string): McpOriginCheck {
    return new McpOriginCheck(parseAllowedOrigins(allowedOrigins), isLoopbackName(listenHost.toLowerCase()));
  }

  /** Why the request must be refused with 403, or null when it may go on. */
  refusal(origin: string, host: string): string | null {
    if (this.loopbackOnly && !isLoopbackName(hostName(host))) return 'Host header: this gateway answers MCP requests only under a loopback name or address';
    if (origin === '' || this.allowed.has(origin) || sameOrigin(origin, host)) return null;
    return 'Origin header: not an allowed origin (MCP_ALLOWED_ORIGINS)';
  }
}

/**
 * MCP_ALLOWED_ORIGINS: comma-separated origins, `scheme://host[:port]` (`https://app.example.com`,
 * `http://localhost:5173`), kept as browsers send them (lower case, no default port). Anything else stops the start.
 */
export function parseAllowedOrigins(setting: string): ReadonlySet<string> {
  const out = new Set<string>();
  for (const part of setting.split(',')) {
    const v = part.trim();
    if (v === '') continue;
    let url: URL | null = null;
    try {
      url = new URL(v);
    } catch {
      // Named below.
    }
    if (url === null || url.origin === 'null' || url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || v.includes('*')) {
      throw new Error(`MCP_ALLOWED_ORIGINS: "${v.slice(0, 100)}" is not an origin (scheme://host[:port], no path; comma-separated)`);
    }
    out.add(url.origin);
  }
  return out;
}

/** The name part of a Host header value (`name`, `name:port`, `[v6]`, `[v6]:port`), lower case; '' when malformed. */
function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0 || (end + 1 < host.length && host[end + 1] !== ':')) return '';
    return host.slice(0, end + 1).toLowerCase();
  }
  const colon = host.indexOf(':');
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase();
}

/** `localhost`, 127.0.0.0/8 or ::1 (a listening address, or a Host header's name part). */
function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name === '[::1]' || name === '::1') return true;
  return name.startsWith('127.') && isIPv4(name);
}

/** The Origin names the host and port the request was sent to (an absent port is the origin scheme's default). */
function sameOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // A serialised origin only (browsers send nothing else): not `null`, no path, no credentials.
  if (url.origin !== origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
  const name = hostName(host);
  if (name === '' || name !== url.hostname) return false;
  const port = host.length > name.length ? host.slice(name.length + 1) : '';
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  return (url.port || defaultPort) === (port || defaultPort);
}
