import { SERVER_REQUEST_KINDS } from './mcp-methods.js';

/** One upstream MCP server the sidecar fronts: its URL and the sidecar's own credentials for it. */
export interface McpUpstream {
  readonly name: string;
  readonly url: URL;
  /** Sent on every request to the server (the sidecar's credentials); never the agent's PAT. */
  readonly headers: Readonly<Record<string, string>>;
  /** Method prefixes (`sampling/`, …) of the server's requests the gateway refuses itself: they never reach the agent. */
  readonly refusedServerRequests: readonly string[];
}

/** The fields of one server's object form: anything else is a mistake (a misspelt refusal must not pass unnoticed). */
const FIELDS: ReadonlySet<string> = new Set(['url', 'headers', 'refuse_server_requests']);

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/** Headers the relay sets itself, per request: configuration may not override them. */
const RESERVED: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'accept', 'content-type']);

/**
 * MCP_UPSTREAMS: `{"crm": "https://crm.internal/mcp", "files": {"url": "http://127.0.0.1:9000/mcp", "headers":
 * {"authorization": "Bearer …"}, "refuse_server_requests": ["sampling", "elicitation"]}}`, read once at start; anything
 * malformed stops the start with a message naming it (never the header values: they are credentials).
 */
export function parseMcpUpstreams(setting: string): ReadonlyMap<string, McpUpstream> {
  const out = new Map<string, McpUpstream>();
  if (setting.trim() === '') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(setting);
  } catch {
    throw new Error('MCP_UPSTREAMS: not valid JSON (expected {"name": "https://server/mcp", …})');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('MCP_UPSTREAMS: must be a JSON object of name → URL or {url, headers}');
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!NAME.test(name)) throw new Error(`MCP_UPSTREAMS: "${name.slice(0, 64)}": a name is letters, digits, _ and - (at most 64)`);
    const spec = typeof value === 'string' ? { url: value } : value;
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new Error(`MCP_UPSTREAMS.${name}: a URL string or {url, headers}`);
    for (const key of Object.keys(spec)) if (!FIELDS.has(key)) throw new Error(`MCP_UPSTREAMS.${name}: unknown field "${key.slice(0, 64)}" (url, headers, refuse_server_requests)`);
    const { url, headers = {}, refuse_server_requests: refuse = [] } = spec as { url?: unknown; headers?: unknown; refuse_server_requests?: unknown };
    if (typeof url !== 'string') throw new Error(`MCP_UPSTREAMS.${name}.url: required string`);
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url);
    } catch {
      throw new Error(`MCP_UPSTREAMS.${name}.url: not a URL`);
    }
    if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') throw new Error(`MCP_UPSTREAMS.${name}.url: http or https`);
    if (parsedUrl.username || parsedUrl.password) throw new Error(`MCP_UPSTREAMS.${name}.url: put credentials in "headers", not in the URL`);
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) throw new Error(`MCP_UPSTREAMS.${name}.headers: an object of header → value`);
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
      const key = k.toLowerCase();
      if (!HEADER_NAME.test(k) || RESERVED.has(key)) throw new Error(`MCP_UPSTREAMS.${name}.headers: "${k.slice(0, 64)}" cannot be set`);
      if (typeof v !== 'string' || /[\r\n\0]/.test(v)) throw new Error(`MCP_UPSTREAMS.${name}.headers.${key}: a single-line string`);
      h[key] = v;
    }
    const kinds = Object.keys(SERVER_REQUEST_KINDS);
    if (!Array.isArray(refuse) || refuse.some((k) => typeof k !== 'string' || !kinds.includes(k))) throw new Error(`MCP_UPSTREAMS.${name}.refuse_server_requests: a list of ${kinds.map((k) => `"${k}"`).join(', ')}`);
    const refused = Object.freeze([...new Set(refuse as string[])].map((k) => SERVER_REQUEST_KINDS[k] as string));
    out.set(name, Object.freeze({ name, url: parsedUrl, headers: Object.freeze(h), refusedServerRequests: refused }));
  }
  return out;
}
