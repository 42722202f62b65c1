import { App, us_listen_socket_close, type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { performance } from 'node:perf_hooks';
import { pinoRequestLog, traceFrom, type Logger, type RequestLog } from '@aduana/shared';
import { GatewayError, toEnvelope } from '../errors.js';
import type { Scope } from '../identity/auth/principal.js';
import type { AccessControl } from '../identity/auth/authenticate.js';
import { NO_HEADERS, RequestContext } from './request-context.js';
import { readRequestHead } from './request-head.js';
import { matchesKnownPath } from './known-paths.js';
import { routeCheck, routeHeaders, type AuthGuards, type AuthKind, type RouteAuth } from './route-guards.js';
import { CLIENT_ABORTED, readBody } from './read-body.js';
import type { BodyBudget } from './body-budget.js';
import { parseJsonBody } from './json-body.js';
import { statusLine } from './status-text.js';
import { CONTENT_TYPE, JSON_TYPE, TRACE_ID, TRACEPARENT } from './header-bytes.js';
import { endWithBody } from './write-body.js';
import { listenAlone, registerUws, type Method } from './uws-app.js';

/** Request threads that judge requests themselves, as a port's routes wait for them (useJudgingThreads). */
export interface JudgingThreads {
  /** Resolves once what the threads handed the ledger's writer so far is committed. */
  barrier(): Promise<void>;
  /** Resolves once every notice sent so far was applied by every thread; null when none is outstanding. */
  settled(): Promise<void> | null;
}

/** Threads whose apps take the agents' port's connections (threads/request-threads.ts), as the port's acceptor sees them. */
export interface AcceptedThreads {
  /** Tells the threads how to take one's app from the acceptor (when it closes or is lost). */
  attach(detach: (descriptor: number) => void): void;
  /** The apps ready to take connections. */
  readonly descriptors: readonly number[];
  /** Closes every thread once this server's apps drained. */
  close(): Promise<void>;
}

type UwsHandler = (res: HttpResponse, req: HttpRequest) => void;
/** What uWS's types leave out: an app's descriptor, and an acceptor's children. */
interface AcceptorApp {
  getDescriptor(): number;
  addChildAppDescriptor(descriptor: number): void;
  removeChildAppDescriptor(descriptor: number): void;
}

export type { Method };

export interface Reply {
  status: number;
  /** Serialised as JSON unless `raw` is given. */
  body?: unknown;
  raw?: string | Buffer;
  contentType?: string;
  headers?: Readonly<Record<string, string>>;
  /** Set-Cookie values, each its own header (a record holds one value per name). */
  cookies?: readonly string[];
}

/** Returned by a handler that answered on `ctx.res` itself (streams). */
export const HANDLED = Symbol('handled');
export type HandlerResult = Reply | typeof HANDLED;
export type Handler = (ctx: RequestContext) => HandlerResult | Promise<HandlerResult>;

/** A route's declaration: how it authenticates (`auth`, route-guards.ts) and how its body is read. */
export type RouteOptions = RouteAuth & {
  /** 'json' parses the body (400 on bad JSON); 'raw' keeps the bytes; 'none' reads nothing. */
  readonly body: 'json' | 'raw' | 'none';
  /** Body cap in bytes (413 past it). */
  readonly maxBody?: number;
  /** Extra request headers (lower case) the handler reads, with `ctx.header(name)`; read once with the head. */
  readonly headers?: readonly string[];
  /**
   * The shape every path parameter must have: a path whose parameter does not is a 404 (it names nothing), decided
   * before the guard, so a page that sends the signed-out to its sign-in page still refuses a path like `..`.
   */
  readonly params?: RegExp;
  /**
   * An agents' call (docs/architecture.md, "Threads"): it reads nothing request threads write, so it does not wait
   * for them (every other route does). 'any-thread': also served on the agents' port (AGENT_PORT) by every thread,
   * mounted there as here (api/mount-agents-calls.ts); 'main-thread': on this port only (MCP's sessions and the
   * agents' registry live on the main thread).
   */
  readonly agentsCall?: 'any-thread' | 'main-thread';
};

export type { AccessControl };
export type { AuthGuard, AuthGuards, AuthKind } from './route-guards.js';

/** One registered route, as `routes` lists it. */
export interface RouteInfo {
  readonly method: Method;
  readonly pattern: string;
  readonly auth: AuthKind;
  /** The scope it requires, when its kind takes one. */
  readonly scope: Scope | null;
}

export interface ServerOptions {
  logger: Logger;
  /** Where the one-line-per-request log goes (default: through `logger`'s own `info`); see createLoggers. */
  requestLog?: RequestLog;
  /** The `pat` routes' authorization. */
  access: AccessControl;
  /** The guards of the other kinds its routes declare; a route of a kind without one is refused at registration. */
  guards?: AuthGuards;
  defaultMaxBody: number;
  /** Caps request body bytes held at once (shared by the servers of one process). */
  budget: BodyBudget;
  /** Names the server in start-up errors. */
  serviceName: string;
  /** Told of every answered request: the server's name and seconds since it arrived (a latency histogram). */
  onAnswered?: (serviceName: string, seconds: number) => void;
  /**
   * Consulted once per route at registration: a check run after the request is authorized, or null for none (a
   * sidecar refuses admin writes this way). Absent: no route has one, and nothing is added per request.
   */
  routeGuard?: (route: RouteInfo, options: RouteOptions) => ((ctx: RequestContext) => void) | null;
  /**
   * The agents' port (AGENT_PORT): 'also', a second app serves the routes declared `agentsCall: 'any-thread'` there
   * (the main thread's); 'only', this server's app is the agents' port's and has only those (a request thread's).
   * Absent: none.
   */
  agentsPort?: 'also' | 'only';
}

/** Where a path the agents' port does not serve is served. */
const NOT_ON_AGENTS_PORT = "not served on the agents' port, which serves POST /v1/decide, POST /v1/events and its batch, and the proxy (/v1/proxy/); the gateway's port serves every route";

/**
 * A thin layer over uWebSockets.js: routes declared as data (method, pattern, authentication, body mode), one dispatch
 * path that runs the route's guard from the head (credential, scope, the plan), then reads the body with a cap (and
 * against the in-flight budget), runs the handler and writes the reply corked. Every error, thrown anywhere, goes
 * through `toEnvelope` (errors.ts), so the wire format lives in one place.
 */
export class HttpServer {
  readonly app: TemplatedApp;
  #listenSocket: us_listen_socket | null = null;
  #inFlight = 0;
  #draining = false;
  #drained: (() => void) | null = null;
  readonly #opts: ServerOptions;
  readonly #routes = new Map<string, Set<Method>>();
  readonly #routeList: RouteInfo[] = [];
  readonly #fallbackHeaders: { prefix: string; headers: Readonly<Record<string, string>> }[] = [];
  /** The agents' port's app on the main thread (`agentsPort: 'also'`), and its routes' patterns and methods. */
  readonly #agentsApp: TemplatedApp | null;
  readonly #agentsRoutes = new Map<string, Set<Method>>();
  #agentsListenSocket: us_listen_socket | null = null;
  /** With request threads: the app that accepts the agents' port's connections and hands them to the threads' apps and the agents' app here. */
  #acceptor: TemplatedApp | null = null;
  #threads: AcceptedThreads | null = null;
  /** The request threads' apps the acceptor hands connections to. */
  readonly #accepted = new Set<number>();
  #judging: JudgingThreads | null = null;

  readonly #requestLog: RequestLog;

  constructor(opts: ServerOptions) {
    this.#opts = opts;
    this.#requestLog = opts.requestLog ?? pinoRequestLog(opts.logger);
    this.app = App();
    this.#agentsApp = opts.agentsPort === 'also' ? App() : null;
  }

  route(method: Method, pattern: string, options: RouteOptions, handler: Handler): this {
    const info: RouteInfo = Object.freeze({ method, pattern, auth: options.auth, scope: options.scope ?? null });
    const guards = this.#opts.guards ?? {};
    const check = routeCheck(`${this.#opts.serviceName}: ${method} ${pattern}`, options, this.#opts.access, guards, this.#opts.routeGuard?.(info, options) ?? null);
    const everyThread = options.agentsCall === 'any-thread';
    if (this.#opts.agentsPort === 'only' && !everyThread) throw new Error(`${this.#opts.serviceName}: ${method} ${pattern} is not an agents' call: request threads serve only those`);
    addRoute(this.#routes, pattern, method);
    if (everyThread && this.#agentsApp !== null) addRoute(this.#agentsRoutes, pattern, method);
    this.#routeList.push(info);
    const paramCount = (pattern.match(/\/:/g) ?? []).length;
    const maxBody = options.maxBody ?? this.#opts.defaultMaxBody;
    const headerNames = routeHeaders(options, guards);
    // The proxy answers its refusals and waits for its admission itself (RouteAuth's refusedBy).
    const waits = options.auth !== 'pat' || options.refusedBy !== 'handler';
    const signIn = options.auth === 'session' ? (options.signIn ?? null) : null;
    const paramShape = options.params ?? null;
    const barrier = options.agentsCall === undefined;
    this.#register(method, pattern, everyThread, (res: HttpResponse, req: HttpRequest) => {
      const ctx = this.#begin(res, req, method, paramCount, headerNames);
      // Nothing a client sends may throw out of this callback: uWS would take the process down with it.
      try {
        // Decided from the head, before a byte of the body is read (a caller without a valid credential, the scope or
        // plan room costs no memory): a malformed head, shutdown, then the route's guard.
        if (ctx.rejection) throw ctx.rejection;
        if (this.#draining) throw new GatewayError('shutting_down');
        if (paramShape !== null && !ctx.params.every((p) => paramShape.test(p))) throw new GatewayError('route_not_found');
        if (check !== null) check(ctx);
        const admission = waits ? ctx.admission : null;
        if (options.body === 'none') {
          if (admission === null) void this.#run(ctx, options, handler, barrier);
          else admission.then(() => this.#run(ctx, options, handler, barrier), (err: unknown) => this.fail(ctx, err));
          return;
        }
        // A shared plan admission (Redis) is waited for while the body arrives: the read must start now, uWS does not
        // keep body chunks for a reader attached later. A refusal answers without waiting for the rest of the body.
        const body = this.readBody(ctx, maxBody);
        (admission === null ? body : Promise.all([body, admission]).then(() => body)).then(
          (raw) => {
            ctx.onAbort = null;
            ctx.rawBody = raw;
            return this.#run(ctx, options, handler, barrier);
          },
          (err: unknown) => {
            if (err !== CLIENT_ABORTED) this.fail(ctx, err);
          },
        );
      } catch (err) {
        // A refusal after a shared admission started (the route guard): its outcome no longer matters.
        ctx.admission?.catch(() => {});
        if (signIn !== null && err instanceof GatewayError && err.status === 401) this.reply(ctx, { status: 303, headers: { location: signIn, 'cache-control': 'no-store' } });
        else this.fail(ctx, err);
      }
    });
    return this;
  }

  /** Reads the request body up to `maxBytes`, counted against the in-flight budget until the request is answered. */
  readBody(ctx: RequestContext, maxBytes: number): Promise<Buffer> {
    return readBody(ctx.res, maxBytes, ctx, this.#opts.budget);
  }

  /** Every route registered so far, in registration order (tests walk it to cover routes added later). */
  get routes(): readonly RouteInfo[] {
    return this.#routeList.slice();
  }

  /** Headers the fallbacks' 404 and 405 carry for paths under `prefix` (the proxy's verdict headers under /v1/proxy/). */
  fallbackHeadersUnder(prefix: string, headers: Readonly<Record<string, string>>): void {
    this.#fallbackHeaders.push({ prefix, headers });
  }

  /** Installs the fallbacks: 405 for a known path with another method, 404 otherwise. Call after all routes. */
  finish(): this {
    this.app.any('/*', this.#fallback(this.#routes, this.#opts.agentsPort === 'only' ? NOT_ON_AGENTS_PORT : undefined));
    this.#agentsApp?.any('/*', this.#fallback(this.#agentsRoutes, NOT_ON_AGENTS_PORT));
    return this;
  }

  #fallback(routes: Map<string, Set<Method>>, notFound: string | undefined): UwsHandler {
    return (res, req) => {
      const ctx = this.#begin(res, req, 'get', 0, NO_HEADERS);
      const extra = this.#fallbackHeaders.find((f) => ctx.url.startsWith(f.prefix))?.headers;
      try {
        if (ctx.rejection) throw ctx.rejection;
        const known = matchesKnownPath(routes.keys(), ctx.url);
        this.fail(ctx, known ? new GatewayError('method_not_allowed') : new GatewayError('route_not_found', notFound), extra);
      } catch (err) {
        this.fail(ctx, err, extra);
      }
    };
  }

  #register(method: Method, pattern: string, everyThread: boolean, handler: UwsHandler): void {
    registerUws(this.app, method, pattern, handler);
    if (everyThread && this.#agentsApp !== null) registerUws(this.#agentsApp, method, pattern, handler);
  }

  /**
   * From now on every route but the agents' calls first waits for what request threads handed the ledger's writer,
   * and every answer for the notices its handler caused (docs/architecture.md, "Threads").
   */
  useJudgingThreads(judging: JudgingThreads): void {
    this.#judging = judging;
  }

  /** The agents' port's routes here ("method pattern"): what each request thread must serve. */
  get agentsRoutes(): readonly string[] {
    return [...this.#agentsRoutes].flatMap(([pattern, methods]) => [...methods].map((m) => `${m} ${pattern}`));
  }

  #begin(res: HttpResponse, req: HttpRequest, method: string, paramCount: number, headerNames: readonly string[]): RequestContext {
    const ctx = new RequestContext(res, traceFrom(req.getHeader(TRACEPARENT) || undefined), performance.now());
    this.#inFlight++;
    ctx.method = method;
    readRequestHead(ctx, req, paramCount, headerNames);
    res.onAborted(() => {
      ctx.aborted = true;
      if (!ctx.responded) {
        ctx.responded = true;
        this.#done(ctx);
      }
      ctx.onAbort?.();
    });
    return ctx;
  }

  async #run(ctx: RequestContext, options: RouteOptions, handler: Handler, barrier: boolean): Promise<void> {
    try {
      if (options.body === 'json' && ctx.rawBody) ctx.body = parseJsonBody(ctx.rawBody);
      const judging = this.#judging;
      if (judging !== null && barrier) await judging.barrier();
      const result = await handler(ctx);
      // What the handler changed that request threads cache (policies, plans, credentials, agents) is applied there
      // before the change is answered.
      const settling = judging?.settled();
      if (settling) await settling;
      if (result !== HANDLED) this.reply(ctx, result);
    } catch (err) {
      this.fail(ctx, err);
    }
  }

  /** Writes a reply (corked). A no-op when the client already left or a reply was written. */
  reply(ctx: RequestContext, r: Reply): void {
    if (ctx.responded) return;
    ctx.responded = true;
    const payload = r.raw ?? (r.body === undefined ? '' : JSON.stringify(r.body));
    const type = r.contentType ?? (r.raw === undefined && r.body !== undefined ? JSON_TYPE : '');
    ctx.res.cork(() => {
      const res = ctx.res;
      res.writeStatus(statusLine(r.status));
      res.writeHeader(TRACE_ID, ctx.trace.traceId);
      if (type) res.writeHeader(CONTENT_TYPE, type);
      if (r.headers) for (const k in r.headers) res.writeHeader(k, r.headers[k] as string);
      if (r.cookies) for (const c of r.cookies) res.writeHeader('set-cookie', c);
      // No argument: uWS writes any argument, even undefined, as a Content-Length, and a 204 or 304 carries none (RFC
      // 9110, 8.6). Only a refused request (an error with a body) asks for closeConnection, so none is lost here.
      if (r.status === 204 || r.status === 304) res.endWithoutBody();
      else if (ctx.closeConnection) res.end(payload, true);
      else endWithBody(res, payload, () => ctx.aborted);
    });
    this.#opts.onAnswered?.(this.#opts.serviceName, (performance.now() - ctx.startedAt) / 1000);
    this.#log(ctx, r.status);
    this.#done(ctx);
  }

  /** One line per request (docs/decisions.md): never a body, a header value or a token; the path without its query. */
  #log(ctx: RequestContext, status: number): void {
    if (!this.#requestLog.enabled) return;
    this.#requestLog.write({
      method: ctx.method.toUpperCase(),
      path: ctx.url,
      status,
      ms: Math.round((performance.now() - ctx.startedAt) * 1000) / 1000,
      traceId: ctx.trace.traceId,
      tenant: ctx.principal?.tenantId,
      agent: ctx.agentId || undefined,
    });
  }

  /** The one error path: any thrown value becomes the error envelope (docs/decisions.md, "Errors"); unexpected ones are logged (no bodies). */
  fail(ctx: RequestContext, err: unknown, extraHeaders?: Readonly<Record<string, string>>): void {
    if (!(err instanceof GatewayError)) {
      this.#opts.logger.error({ err, url: ctx.url, traceId: ctx.trace.traceId }, 'unexpected error');
    }
    const env = toEnvelope(err, ctx.trace.traceId);
    const headers = env.headers || extraHeaders ? { ...env.headers, ...extraHeaders } : undefined;
    this.reply(ctx, headers ? { status: env.status, body: env.body, headers } : { status: env.status, body: env.body });
  }

  /** Marks a request finished that a handler answered itself (HANDLED). */
  complete(ctx: RequestContext, status: number): void {
    if (ctx.responded) return;
    ctx.responded = true;
    this.#opts.onAnswered?.(this.#opts.serviceName, (performance.now() - ctx.startedAt) / 1000);
    this.#log(ctx, status);
    this.#done(ctx);
  }

  #done(ctx: RequestContext): void {
    this.#opts.budget.release(ctx);
    this.#inFlight--;
    if (this.#draining && this.#inFlight === 0) this.#drained?.();
  }

  /** Listens on `host:port` alone (no other listener may share it); resolves with the port. */
  async listen(host: string, port: number): Promise<number> {
    const listening = await listenAlone(this.app, host, port, this.#opts.serviceName);
    this.#listenSocket = listening.socket;
    return listening.port;
  }

  /**
   * Listens on the agents' port (`agentsPort: 'also'`); resolves with the port. With request threads, an acceptor app
   * listens and hands each connection to the agents' app here or to one of the threads' apps (uWS's child apps), each
   * as `acceptThreads` adds it; a connection stays with the thread that got it.
   */
  async listenAgents(host: string, port: number, threads: AcceptedThreads | null): Promise<number> {
    if (this.#agentsApp === null) throw new Error(`${this.#opts.serviceName}: no agents' port`);
    let app = this.#agentsApp;
    if (threads !== null) {
      const acceptor = App();
      const children = acceptor as unknown as AcceptorApp;
      children.addChildAppDescriptor((this.#agentsApp as unknown as AcceptorApp).getDescriptor());
      threads.attach((d) => {
        if (this.#accepted.delete(d)) children.removeChildAppDescriptor(d);
      });
      this.#acceptor = acceptor;
      this.#threads = threads;
      app = acceptor;
    }
    const listening = await listenAlone(app, host, port, `${this.#opts.serviceName} (agents' port)`);
    this.#agentsListenSocket = listening.socket;
    return listening.port;
  }

  /** Hands connections to the request threads whose apps became ready since (after `listenAgents` with threads). */
  acceptThreads(): void {
    const acceptor = this.#acceptor as unknown as AcceptorApp | null;
    if (acceptor === null || this.#threads === null || this.#draining) return;
    for (const d of this.#threads.descriptors) {
      if (d === -1 || this.#accepted.has(d)) continue;
      this.#accepted.add(d);
      acceptor.addChildAppDescriptor(d);
    }
  }

  /** Stops accepting connections, lets in-flight requests finish (up to `graceMs`), then closes every socket. */
  async close(graceMs = 10_000): Promise<void> {
    this.#draining = true;
    for (const socket of [this.#listenSocket, this.#agentsListenSocket]) if (socket) us_listen_socket_close(socket);
    this.#listenSocket = null;
    this.#agentsListenSocket = null;
    if (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.#drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    // Request threads end once what they have open is answered (their listening socket closed above); then these
    // apps close, and the acceptor with them.
    await this.#threads?.close();
    this.app.close();
    this.#agentsApp?.close();
    this.#acceptor?.close();
  }

  get inFlight(): number {
    return this.#inFlight;
  }
}

function addRoute(routes: Map<string, Set<Method>>, pattern: string, method: Method): void {
  const methods = routes.get(pattern) ?? new Set<Method>();
  methods.add(method);
  routes.set(pattern, methods);
}
