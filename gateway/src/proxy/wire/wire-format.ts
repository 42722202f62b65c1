import type { GatewayConfig } from '../../config.js';
import type { ErrorEnvelope } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { AnswerFormat } from '../formats/answer-format.js';
import type { MediaLocator } from '../formats/request-media.js';
import type { ProxyContext } from '../proxy-context.js';

/**
 * A provider's wire format, both directions, as one value read by the pipeline, the routes and the upstream pools:
 * its routes and endpoints, how the client's key arrives and how the upstream key and the headers the provider needs
 * are sent, each endpoint's request checks, where the model and the media of a request are, the answer reader, and the
 * provider's own error shape. The stages ask the format and never branch on the provider or the endpoint; a new
 * provider is a new file of this and a row of the table (`wire-formats.ts`).
 */
export interface WireFormat<K extends string = string, P extends string = string> {
  /** The provider's name: its upstream pool, and the routes it gets only when that upstream is configured. */
  readonly provider: P;
  /** Its upstream from the settings (base URL, the sidecar's key), or null when none is configured (Azure's default). */
  upstream(config: GatewayConfig): { readonly baseUrl: string; readonly apiKey: string } | null;
  /** Where the provider reads its key upstream: `Authorization: Bearer`, or a header of its own. */
  readonly upstreamKeyHeader: 'authorization' | 'x-api-key' | 'api-key' | 'x-goog-api-key';
  /** Where its SDK puts the key, beside `Authorization: Bearer`: the PAT is read from there. */
  readonly keyHeaders: readonly string[];
  /** The request headers its routes declare (a prefix of PROXY_HEADERS, so that they are read by position). */
  readonly headers: readonly string[];
  /** The position in `headers` of the client's own provider key (`x-forwarded-authorization` or `x-forwarded-api-key`). */
  readonly forwardedKeyAt: number;
  /** Headers the provider needs whoever's key goes out (Anthropic's version and beta), from the declared headers' values. */
  passHeaders(values: readonly string[]): Readonly<Record<string, string>>;
  /** Its endpoints, each once. */
  readonly endpoints: readonly Endpoint<K>[];
  /** Its routes under /v1/proxy: one endpoint each, or one that picks the endpoint from the path (Gemini's `{model}:{method}`). */
  readonly routes: readonly WireRoute[];
  /**
   * A refusal or failure the gateway answers on this format's routes, in the provider's own error shape (so the
   * provider's SDK raises it with our message), carrying our envelope's fields wherever the shape allows.
   */
  errorBody(status: number, ours: ProxyErrorBody): object;
}

/** The gateway's error envelope as the proxy answers it: a policy block adds `verdict` and `policy` beside `error`. */
export type ProxyErrorBody = ErrorEnvelope & {
  readonly verdict?: string;
  readonly policy?: { readonly id: string; readonly type: string; readonly action: string; readonly version: string };
};

export type RouteMethod = 'get' | 'post' | 'delete';

export type WireRoute =
  | { readonly method: RouteMethod; readonly path: string; readonly endpoint: Endpoint }
  | {
      readonly method: RouteMethod;
      readonly path: string;
      /** The endpoint the request's path names, or null for a call that is not proxied (then a 404 of `notProxied`). */
      readonly pick: (http: RequestContext) => Endpoint | null;
      readonly notProxied: string;
    };

/** One proxied provider endpoint (docs/decisions.md, "Governance proxy"). */
export interface Endpoint<K extends string = string> {
  /** Its name in the ledger entry and the request log (`endpoint`). */
  readonly kind: K;
  /** The wire format it belongs to. */
  readonly wire: WireFormat;
  /** The upstream request's method (default POST). */
  readonly method?: 'GET' | 'DELETE';
  /**
   * It reads a response the provider stored (by the id in its path): only the tenant whose call made it may, and its
   * answer's texts are redacted as an answer's (docs/decisions.md, "Stored responses").
   */
  readonly readsStored?: boolean;
  /** Path below the provider's upstream base URL. */
  readonly upstreamPath: string;
  /**
   * The path when it depends on the request (Azure's deployment and api-version), checked before anything is judged:
   * throws a GatewayError for what must not reach a URL.
   */
  readonly pathOf?: (http: RequestContext) => string;
  /** The model, when the path names it rather than the body (Gemini). */
  readonly modelOf?: (http: RequestContext) => string;
  /** What to record as the model when the body names none (Azure: the deployment, which picks the model). */
  readonly fallbackModelOf?: (http: RequestContext) => string;
  /**
   * The shape the provider requires of a body, beyond the model and `stream` every endpoint checks: throws a
   * GatewayError (400) for a body the provider would refuse anyway. Governed endpoints only.
   */
  readonly validate?: (req: Record<string, unknown>, c: ProxyContext) => void;
  /** The call streams whatever its body says (Gemini's streamGenerateContent). */
  readonly streams?: boolean;
  /** Ledger event type of a call. */
  readonly eventType: string;
  /** Full governance, or a passthrough (models). */
  readonly governed: boolean;
  /** Where its answers, whole or streamed, carry text and usage. */
  readonly format: AnswerFormat;
  /** Where its requests' schema puts media (images, audio, files, provider ciphertext); none when absent. */
  readonly requestMedia?: MediaLocator;
  /** A stream reports usage only when asked (OpenAI's `stream_options.include_usage`): the proxy asks for it. */
  readonly asksStreamUsage: boolean;
}

/** An endpoint as its format's file declares it: the format is filled in, and `route` becomes one of its routes. */
export type EndpointSpec<K extends string> = Omit<Endpoint<K>, 'wire'> & { readonly route?: readonly [RouteMethod, string] };

/** A format as its file declares it, but for its endpoints and routes (made from the endpoints' specs). */
export type WireSpec<P extends string> = Omit<WireFormat<string, P>, 'endpoints' | 'routes'> & {
  /** Routes that pick their endpoint from the request (beside each endpoint's own `route`). */
  readonly picking?: (endpoints: ReadonlyMap<string, Endpoint>) => readonly WireRoute[];
};

/** Builds a format once, at start-up: each endpoint knows its format, and the routes are made from the endpoints. */
export function defineWireFormat<K extends string, P extends string>(spec: WireSpec<P>, specs: readonly EndpointSpec<K>[]): WireFormat<K, P> {
  const endpoints: Endpoint<K>[] = [];
  const routes: WireRoute[] = [];
  const { picking, ...rest } = spec;
  const wire: WireFormat<K, P> = { ...rest, endpoints, routes };
  for (const { route, ...e } of specs) {
    const endpoint: Endpoint<K> = Object.freeze({ ...e, wire });
    endpoints.push(endpoint);
    if (route) routes.push(Object.freeze({ method: route[0], path: route[1], endpoint }));
  }
  if (picking) routes.push(...picking(new Map(endpoints.map((e) => [e.kind, e]))));
  Object.freeze(endpoints);
  Object.freeze(routes);
  return Object.freeze(wire);
}
