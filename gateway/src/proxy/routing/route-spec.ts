import type { Provider } from '../wire/wire-formats.js';

/**
 * A tenant's routes as written (docs/routing.md): where calls can go (`targets`), what an agent may name in `model`
 * and how its calls are spread or fall back (`models`), and how failures are retried, timed and rested. The field
 * names are the documented interface; a tenant without routes keeps the UPSTREAM_* settings as its default route.
 */
export interface RouteSpec {
  readonly targets: Readonly<Record<string, TargetSpec>>;
  readonly models?: Readonly<Record<string, ModelRouteSpec>>;
  readonly retry?: RetrySpec;
  readonly timeouts_ms?: TimeoutsSpec;
  readonly breaker?: BreakerSpec;
}

/** One place calls can go: a provider's API at a base URL, with the credentials it is called with (by name). */
export interface TargetSpec {
  readonly provider: Provider;
  readonly base_url: string;
  /** One credential's name, or several (`credentials`) that rotate; neither: the caller's own key, or none. */
  readonly credential?: string;
  readonly credentials?: readonly string[];
  /** Azure: the deployment each model name is served by (`{ gpt-4o: gpt4o-eu }`). */
  readonly deployments?: Readonly<Record<string, string>>;
  /** Azure: the api-version a call in OpenAI's format is sent with (a call in Azure's own format keeps its own). */
  readonly api_version?: string;
}

/** A model name's route: its targets in order (`fallback`) or spread by weight (`weighted`). */
export interface ModelRouteSpec {
  readonly strategy: 'fallback' | 'weighted';
  readonly targets: readonly (string | ModelTargetSpec)[];
}

export interface ModelTargetSpec {
  readonly target: string;
  /** The model the target is asked for (default: the name the agent gave). */
  readonly model?: string;
  /** `weighted` only: a share, > 0 (default 1). */
  readonly weight?: number;
}

/** What is retried, how often and how long to wait; `connect` and `timeout` name failures without a status. */
export interface RetrySpec {
  /** Attempts after the first, over all of a route's targets. */
  readonly attempts?: number;
  readonly on?: readonly (number | 'connect' | 'timeout')[];
  readonly backoff_ms?: { readonly base?: number; readonly max?: number };
  /** A provider's Retry-After is waited for up to this long; past it, the next target is tried at once. */
  readonly respect_retry_after_s?: number;
}

export interface TimeoutsSpec {
  readonly connect?: number;
  readonly first_byte?: number;
  readonly idle_stream?: number;
}

/** A target that failed this many times in a row is skipped for `open_s`, then one trial call closes or re-opens it. */
export interface BreakerSpec {
  readonly consecutive_failures?: number;
  readonly open_s?: number;
}

/** Resolves a credential's secret by name for a tenant (its sealed store, then the process's environment); null: none. */
export interface CredentialResolver {
  resolve(tenantId: string, name: string): string | null;
  /** Whether a name resolves, for validating a route when it is saved (never the secret). */
  has(tenantId: string, name: string): boolean;
}
