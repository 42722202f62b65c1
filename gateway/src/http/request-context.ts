import type { HttpResponse } from 'uWebSockets.js';
import type { TraceContext } from '@aduana/shared';
import type { Principal } from '../identity/auth/principal.js';
import type { GatewayError } from '../errors.js';

/** Shared by every request of a route that declares no extra headers: nothing is allocated for them. */
export const NO_HEADERS: readonly string[] = Object.freeze([]);

/**
 * Everything a request carries through the stages. uWS's HttpRequest is only valid during the synchronous part of the
 * handler, so what later stages need is copied here up front. All fields are declared (and initialised) in the class
 * so that V8 gives every context one hidden class.
 */
export class RequestContext {
  res: HttpResponse;
  method: string;
  url: string;
  rawQuery: string;
  params: string[];
  authorization: string;
  contentType: string;
  contentLength: number;
  /**
   * The agent the call acts as: x-svc-agent-id, read for every route, else (once authorized) the agent its token is
   * bound to, else SIDECAR_AGENT_ID ('' when none). The request log attributes each request to it.
   */
  agentId: string;
  /** The route's extra headers (those it declares and those its guard reads, lower case) and their values, in order. */
  headerNames: readonly string[];
  headerValues: readonly string[];
  remoteAddress: string;
  trace: TraceContext;
  /** performance.now() at arrival: the start of governance time. */
  startedAt: number;
  principal: Principal | null;
  /** The plan admission when it is decided elsewhere (shared limits on Redis): waited for before the handler runs. */
  admission: Promise<void> | null;
  /** What the route's guard threw, on a route whose handler answers its refusals (the proxy, RouteAuth's refusedBy). */
  refusal: { readonly thrown: unknown } | null;
  body: unknown;
  rawBody: Buffer | null;
  aborted: boolean;
  responded: boolean;
  /** Set while reading the head when the request is malformed: answered before anything else runs. */
  rejection: GatewayError | null;
  /** The request's framing cannot be trusted: close the connection after the answer. */
  closeConnection: boolean;
  /** Body bytes this request holds against the in-flight budget, and the tenant they count against. */
  reservedBytes: number;
  reservedTenant: string | null;
  /** Called once if the client goes away before we answered (the proxy aborts its upstream request here). */
  onAbort: (() => void) | null;

  constructor(res: HttpResponse, trace: TraceContext, startedAt: number) {
    this.res = res;
    this.method = '';
    this.url = '';
    this.rawQuery = '';
    this.params = [];
    this.authorization = '';
    this.contentType = '';
    this.contentLength = -1;
    this.agentId = '';
    this.headerNames = NO_HEADERS;
    this.headerValues = NO_HEADERS;
    this.remoteAddress = '';
    this.trace = trace;
    this.startedAt = startedAt;
    this.principal = null;
    this.admission = null;
    this.refusal = null;
    this.body = undefined;
    this.rawBody = null;
    this.aborted = false;
    this.responded = false;
    this.rejection = null;
    this.closeConnection = false;
    this.reservedBytes = 0;
    this.reservedTenant = null;
    this.onAbort = null;
  }

  /** A header the route declared ('' when absent or not declared). */
  header(name: string): string {
    const i = this.headerNames.indexOf(name);
    return i < 0 ? '' : (this.headerValues[i] ?? '');
  }

  #query: URLSearchParams | null = null;
  /** Parsed lazily: most routes never read the query. */
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }

  /** The client's IP address as text, read from the socket on first use (most routes never need it). */
  clientAddress(): string {
    if (this.remoteAddress === '' && !this.aborted && !this.responded) this.remoteAddress = Buffer.from(this.res.getRemoteAddressAsText()).toString('latin1');
    return this.remoteAddress;
  }

  /** The authenticated principal; only called by handlers of routes that require authentication. */
  get auth(): Principal {
    if (!this.principal) throw new Error('route handler ran without authentication');
    return this.principal;
  }
}
