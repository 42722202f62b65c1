/**
 * What the collectors gather about a site, once, before any check runs (docs/architecture.md: "collect once, then judge").
 * Checks are pure functions over this object: no check does network I/O.
 *
 * Contract between `collect/` (which fills it) and `checks/` (which reads it). Add fields; never change the meaning of
 * one. Every optional resource is either absent (not attempted, e.g. a TLS probe on an http:// URL), or a Probe that
 * says what happened, including failure.
 */

/** Response headers: lower-case names; repeated headers joined with ", " (set-cookie kept apart in `setCookies`). */
export type HeaderMap = Readonly<Record<string, string>>;

/** One HTTP exchange made by a collector. */
export interface Probe {
  /** The URL requested. */
  readonly url: string;
  /** HTTP status, or null when no response came (see `error`). */
  readonly status: number | null;
  readonly headers: HeaderMap;
  readonly setCookies: readonly string[];
  /** Media type without parameters, lower-case ('' when absent). */
  readonly contentType: string;
  /** Decoded text body, cut at the body cap; '' for non-text or failed probes. */
  readonly body: string;
  /** True when the body was cut at the cap. */
  readonly truncated: boolean;
  /** Bytes received on the wire (before decompression). */
  readonly wireBytes: number;
  /** Bytes of the decoded body. */
  readonly bodyBytes: number;
  /** Error code when the probe failed: 'timeout', 'refused', 'dns', 'tls', 'blocked' (SSRF guard), 'too_large', 'network'.
   * Added by collect/: 'redirect_limit' (more redirects than allowed: status, headers and body are those of the last
   * 3xx). With 'timeout' or 'network' a status may be present: the headers came, the body broke off (`truncated`) or
   * could not be decompressed. 'too_large' is for oversized response headers; a large body is cut, not failed. */
  readonly error?: string;
}

/** The main document: a Probe plus what only the page fetch measures. */
export interface PageProbe extends Probe {
  /** URL after redirects (each hop was checked by the SSRF guard). */
  readonly finalUrl: string;
  /** Every URL visited, in order, starting with the requested one. */
  readonly redirectChain: readonly string[];
  /** Time to first byte of the final response, ms. */
  readonly ttfbMs: number;
  /** Time to the end of the body, ms. */
  readonly totalMs: number;
  /** Content-Encoding of the final response ('' when none). */
  readonly contentEncoding: string;
}

export interface TlsInfo {
  /** The certificate chain validated against the system roots for this host name. */
  readonly authorized: boolean;
  /** Node's verification error code when not authorized (e.g. CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID). */
  readonly authorizationError?: string;
  readonly protocol: string | null; // e.g. 'TLSv1.3'
  readonly subject: string;
  readonly issuer: string;
  readonly subjectAltNames: readonly string[];
  readonly validFrom: string; // ISO 8601
  readonly validTo: string; // ISO 8601
  /** Whole days from collection time until validTo (negative when expired). */
  readonly daysRemaining: number;
  /** Added by collect/: set when no handshake completed ('timeout', 'refused', 'tls', 'blocked', 'network'). Then
   * `authorized` is false and the certificate fields are empty ('' / [] / 0): judge the error, not those fields. */
  readonly error?: string;
}

export interface HttpsRedirectInfo {
  /** The http:// URL probed. */
  readonly url: string;
  /** True when http:// answered with a 3xx to an https:// URL on the same host (first hop). */
  readonly redirectsToHttps: boolean;
  readonly status: number | null;
  readonly location: string | null;
  readonly error?: string;
}

export interface Snapshot {
  /** The URL the caller asked about, normalised by WHATWG URL. */
  readonly requestedUrl: string;
  /** ISO 8601 time at which collection started. */
  readonly collectedAt: string;
  readonly page: PageProbe;
  /** Same-origin resources of the final URL's origin. Absent only when the page itself failed. */
  readonly robotsTxt?: Probe;
  readonly sitemapXml?: Probe; // /sitemap.xml, or the first Sitemap: named in robots.txt
  readonly securityTxt?: Probe; // /.well-known/security.txt
  readonly llmsTxt?: Probe; // /llms.txt
  readonly manifest?: Probe; // the <link rel=manifest> target, when the page names one
  readonly apiCatalog?: Probe; // /.well-known/api-catalog (RFC 9727)
  readonly oauthAuthorizationServer?: Probe; // /.well-known/oauth-authorization-server (RFC 8414)
  readonly oauthProtectedResource?: Probe; // /.well-known/oauth-protected-resource (RFC 9728)
  readonly mcpServerCard?: Probe; // /.well-known/mcp.json (MCP server card)
  readonly agentCard?: Probe; // /.well-known/agent-card.json (A2A)
  readonly openapi?: Probe; // first of /openapi.json, /swagger.json, /.well-known/openapi.json that answered 200
  /** The final URL fetched again with `Accept: text/markdown`. */
  readonly markdownNegotiation?: Probe;
  /** Only for https:// targets. */
  readonly tls?: TlsInfo;
  /** Only for https:// targets: does http://host/ redirect to https? */
  readonly httpsRedirect?: HttpsRedirectInfo;
  /** Where the https:// form actions of an HTTPS page lead (first hop, nothing followed, nothing submitted); empty otherwise. */
  readonly formActions?: readonly FormActionProbe[];
}

export interface FormActionProbe {
  /** The action URL asked (GET, no body: the form is never submitted). */
  readonly url: string;
  readonly status: number | null;
  /** The Location of a 3xx answer, resolved against the action URL; null otherwise. */
  readonly location: string | null;
  readonly error?: string;
}

/** Names of the snapshot's optional parts, for a check's `needs` declaration. */
export type SnapshotPart = Exclude<keyof Snapshot, 'requestedUrl' | 'collectedAt'>;
