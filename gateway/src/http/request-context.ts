import type { HttpResponse } from 'uWebSockets.js';
import type { TraceContext } from '@aduana/shared';
import type { Principal } from '../auth/principal.js';
import type { GatewayError } from '../errors.js';

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
  agentId: string;
  /** x-svc-session-id: the session bond enforcement accumulates risk over ('' = the agent's). */
  sessionId: string;
  forwardedAuthorization: string;
  /** Provider routing headers the proxy passes on (OpenAI-Organization, OpenAI-Project). */
  providerOrganization: string;
  providerProject: string;
  remoteAddress: string;
  trace: TraceContext;
  /** performance.now() at arrival: the start of governance time. */
  startedAt: number;
  principal: Principal | null;
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
    this.sessionId = '';
    this.forwardedAuthorization = '';
    this.providerOrganization = '';
    this.providerProject = '';
    this.remoteAddress = '';
    this.trace = trace;
    this.startedAt = startedAt;
    this.principal = null;
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
