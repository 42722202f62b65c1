import type { Dispatcher } from 'undici';
import { UpstreamBody } from './upstream-body.js';
import { Egress, formatTraceparent, undiciErrors, type TraceContext } from '@aduana/shared';
import { GatewayError } from '../../errors.js';

export interface UpstreamOptions {
  baseUrl: string;
  apiKey: string;
  /** Where the provider reads its key: `Authorization: Bearer` (OpenAI), `x-api-key` (Anthropic), `api-key` (Azure), `x-goog-api-key` (Gemini). */
  keyHeader?: 'authorization' | 'x-api-key' | 'api-key' | 'x-goog-api-key';
  /**
   * 'fill': `apiKey` goes out only when the caller forwards no key; 'replace': it goes out on every call and the
   * caller's key is dropped (UPSTREAM_API_KEY_MODE).
   */
  apiKeyMode: 'fill' | 'replace';
  /** Send the client's provider routing headers with the sidecar's own key too (default: only with the client's key). */
  forwardRoutingHeaders: boolean;
  timeoutMs: number;
  /** A route's timeouts (docs/routing.md): to connect, and between two chunks of a stream (default: `timeoutMs`). */
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  connections: number;
  /** Straight to the provider, or through the egress proxy (HTTPS_PROXY, NO_PROXY): decided at start (default: straight). */
  egress?: Egress;
}

/** An answer's body as the answer stages read it: the provider's bytes, or their translation (docs/translation.md). */
export interface AnswerBody extends AsyncIterable<Buffer> {
  /** Stops the upstream request (client gone, answer refused, body too large). */
  destroy(reason?: Error): void;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string>;
  body: AnswerBody;
}

/** Where a call's answer head is left as it arrives (the proxy's per-call context). */
export interface UpstreamSink {
  upstream: UpstreamResponse | null;
  upstreamStatus: number;
}

/** Upstream response headers worth relaying to the client (ids, rate-limit hints, processing time). */
const RELAY = /^(content-type|x-request-id|openai-|x-ratelimit-|retry-after$|anthropic-)/;

/**
 * The connection pool to one LLM provider, made at boot (keep-alive). Requests go through undici's `dispatch` with a
 * handler (its lowest-level path: no Readable stream or abort-signal listener per call). The provider key is the
 * caller's (`x-forwarded-authorization`, or `x-forwarded-api-key` for a provider that reads `x-api-key`), or the
 * sidecar's (always the latter in replace mode); it is forwarded, never stored or logged.
 */
export class UpstreamClient {
  readonly #pool: Dispatcher;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #apiKey: string;
  readonly #keyHeader: 'authorization' | 'x-api-key' | 'api-key' | 'x-goog-api-key';
  readonly #replaceKey: boolean;
  readonly #forwardRouting: boolean;
  readonly #timeoutMs: number;
  readonly #idleMs: number;

  constructor(opts: UpstreamOptions) {
    const url = new URL(opts.baseUrl);
    this.#origin = url.origin;
    const idleMs = opts.idleTimeoutMs ?? opts.timeoutMs;
    this.#pool = (opts.egress ?? Egress.direct).pool(url.origin, {
      connections: opts.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: idleMs,
      ...(opts.connectTimeoutMs !== undefined ? { connectTimeout: opts.connectTimeoutMs } : {}),
    });
    this.#idleMs = idleMs;
    this.#basePath = url.pathname.replace(/\/$/, '');
    this.#keyHeader = opts.keyHeader ?? 'authorization';
    this.#apiKey = opts.apiKey === '' ? '' : this.#keyHeader === 'authorization' ? `Bearer ${opts.apiKey}` : opts.apiKey;
    this.#replaceKey = opts.apiKeyMode === 'replace' && opts.apiKey !== '';
    this.#forwardRouting = opts.forwardRoutingHeaders;
    this.#timeoutMs = opts.timeoutMs;
  }

  /**
   * Sends the request; resolves with status, relayed headers and a body to iterate once the response headers arrive.
   * `cancel` receives a function that aborts the request (the client went away). The head is also left in `sink`
   * before the promise resolves, so a caller can wait for it without a continuation of its own.
   */
  send(opts: {
    method: 'GET' | 'POST' | 'DELETE';
    path: string;
    body: Buffer | null;
    /** The caller's own key, as the value of the provider's key header ('' = the sidecar's). */
    forwardedKey: string;
    trace: TraceContext;
    /**
     * The client's provider routing headers (OpenAI-Organization, OpenAI-Project). They pick whose organisation the
     * key bills, so they go out only with the client's own key, unless configuration allows them with the sidecar's.
     */
    extraHeaders: Record<string, string>;
    /** Headers the provider needs whoever's key is sent (Anthropic's `anthropic-version`). */
    passHeaders: Readonly<Record<string, string>>;
    cancel: (abort: () => void) => void;
    /** A route's credential for this call: sent in place of any other key (the caller's is dropped, as in replace mode). */
    credential?: string;
    /** Reject with an UpstreamFailure (its kind, for a route's retries) rather than the agent's 503. */
    rawFailure?: boolean;
  }, sink: UpstreamSink): Promise<UpstreamResponse> {
    // In replace mode the caller's key is ignored as if it had sent none: its routing headers follow the same rule.
    const clientKey = this.#replaceKey || opts.credential !== undefined ? '' : opts.forwardedKey;
    const headers: Record<string, string> = {
      ...(clientKey || this.#forwardRouting ? opts.extraHeaders : undefined),
      ...opts.passHeaders,
      accept: 'application/json, text/event-stream',
      // Identity: output checks read the answer, and relaying compressed bytes would need decompression anyway.
      'accept-encoding': 'identity',
      traceparent: formatTraceparent(opts.trace),
    };
    const key = opts.credential !== undefined ? this.#asKey(opts.credential) : clientKey || this.#apiKey;
    if (key) headers[this.#keyHeader] = key;
    if (opts.body) headers['content-type'] = 'application/json';
    const body = new UpstreamBody();
    return new Promise((resolve, reject) => {
      let started = false;
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(controller) {
          body.attach(controller);
          opts.cancel(() => body.destroy());
        },
        onResponseStart(_controller, statusCode, rawHeaders) {
          started = true;
          const relayed: Record<string, string> = {};
          for (const [k, v] of Object.entries(rawHeaders)) {
            if (v !== undefined && RELAY.test(k)) relayed[k] = Array.isArray(v) ? v.join(', ') : String(v);
          }
          const up = { status: statusCode, headers: relayed, body };
          sink.upstream = up;
          sink.upstreamStatus = statusCode;
          resolve(up);
        },
        onResponseData(_controller, chunk) {
          body.push(chunk);
        },
        onResponseEnd() {
          body.end();
        },
        onResponseError(_controller, err) {
          if (started) body.fail(err);
          else reject(opts.rawFailure ? new UpstreamFailure(err) : toUpstreamError(err));
        },
      };
      try {
        this.#pool.dispatch(
          { origin: this.#origin, method: opts.method, path: this.#basePath + opts.path, headers, body: opts.body, headersTimeout: this.#timeoutMs, bodyTimeout: this.#idleMs },
          handler,
        );
      } catch (err) {
        reject(opts.rawFailure ? new UpstreamFailure(err) : toUpstreamError(err));
      }
    });
  }

  #asKey(secret: string): string {
    return this.#keyHeader === 'authorization' ? `Bearer ${secret}` : secret;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** Why a call got no answer: what a route retries on (`connect`, `timeout`) and what the agent and the ledger are told. */
export type UpstreamFailureKind = 'refused' | 'dns' | 'tls' | 'timeout' | 'reset';

/** The kind of an undici failure before any answer. */
export function upstreamFailureKind(err: unknown): UpstreamFailureKind {
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) return 'timeout';
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (typeof code === 'string' && (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.includes('CERT'))) return 'tls';
  return 'reset';
}

/** A call that got no answer: undici's error and its kind, for a route to retry on and name. */
export class UpstreamFailure extends Error {
  readonly kind: UpstreamFailureKind;
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'UpstreamFailure';
    this.kind = upstreamFailureKind(cause);
  }
}

/** Refused, reset, timed out, DNS: all "the provider is unavailable" (503) to the caller. */
export function toUpstreamError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof UpstreamFailure) return toUpstreamError(err.cause);
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('upstream_unavailable', 'upstream LLM provider timed out');
  }
  return new GatewayError('upstream_unavailable');
}
