import { setTimeout as sleep } from 'node:timers/promises';
import type { Egress, Logger } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import { NoticeSlot } from '../../platform/notice-slot.js';
import type { ProxyContext } from '../proxy-context.js';
import { UpstreamClient, UpstreamFailure, type UpstreamFailureKind, type UpstreamResponse } from '../upstream/upstream-client.js';
import { WIRE_FORMATS, type Provider } from '../wire/wire-formats.js';
import { backoffMs, retryAfterMs } from './backoff.js';
import { attemptOrder, compileRoutes, familyOf, nextCredential, type ModelPlan, type RouteChoice, type RoutePlan, type RoutedTarget } from './route-plan.js';
import type { CredentialResolver, RouteSpec } from './route-spec.js';
import { routedPath } from './routed-path.js';
import { CHAT_TRANSLATORS, translatable } from '../translation/chat-translators.js';
import type { ChatTranslator, TranslatedRequest } from '../translation/chat-translator.js';
import { translateAnswer } from '../translation/translated-answer.js';

/** A tenant's routes changed on the main thread: a request thread's router compiles them again on its next call. */
export const ROUTE_CHANGES = new NoticeSlot<string>('routes');

/** A tenant's stored routes (the routes API's store): its spec and version, or null for a tenant without routes. */
export interface RouteSource {
  get(tenantId: string): { readonly version: number; readonly spec: RouteSpec } | null;
}

/** One attempt of a routed call, as the ledger entry lists it (keys in code-unit order: canonical JSON). */
export interface RouteAttempt {
  readonly credential?: string;
  readonly error?: UpstreamFailureKind | 'credential_missing' | 'credentials_resting' | 'untranslatable';
  readonly ms: number;
  readonly model: string;
  /** The target's provider, only when the call was translated into its format (docs/translation.md). */
  readonly provider?: string;
  readonly status?: number;
  readonly target: string;
}

/** What a routed call records: the model asked for, the target that answered (or none), every attempt. */
export interface RouteRecord {
  readonly attempts: RouteAttempt[];
  readonly model: string;
  target: string;
}

export interface RouterOptions {
  readonly connections: number;
  readonly forwardRoutingHeaders: boolean;
  readonly egress: Egress;
  /** The largest translated answer (or error body) read whole, bytes: the proxy's cap on an answer. */
  readonly maxAnswerBytes: number;
  /** Where a target's failure is told (a warn line: tenant, target, model, why; never a key). */
  readonly logger?: Logger;
  /**
   * Told when a target's breaker opens (or opens again after its trial failed), open until `untilMs` on `now`'s
   * clock: the telemetry's open-breakers gauge (docs/telemetry.md). Rare: never on a call that does not open one.
   */
  readonly onBreakerOpened?: (tenantId: string, target: string, untilMs: number) => void;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly wait?: (ms: number) => Promise<unknown>;
}

/** The send options the forward stage makes for a call, without what each attempt sets (path, body, key). */
export type RoutedSendBase = Omit<Parameters<UpstreamClient['send']>[0], 'path' | 'body' | 'credential' | 'rawFailure'>;

/** How long an opened credential is used before it is read again (a rotation is taken within this). */
const SECRET_TTL_MS = 5000;

/** 4xx a retry cannot mend: the request is at fault (408, 409 and 429 are the provider's state, not the request's). */
const REQUEST_AT_FAULT = (status: number): boolean => status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;

/**
 * Tenants' routes (docs/routing.md): compiled once per change, each target's pool shared by every route with the same
 * base URL and timeouts. A call whose model has a route is sent here: its targets tried in the route's order (or by
 * weight), retried and failed over only before anything of the answer reached the agent, each attempt recorded.
 */
export class Router {
  readonly #plans = new Map<string, RoutePlan<UpstreamClient> | null>();
  readonly #clients = new Map<string, UpstreamClient>();
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #wait: (ms: number) => Promise<unknown>;

  constructor(
    private readonly source: RouteSource,
    private readonly credentials: CredentialResolver,
    private readonly options: RouterOptions,
  ) {
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#wait = options.wait ?? ((ms) => sleep(ms));
  }

  /** The tenant's compiled routes, or null (the default route: UPSTREAM_*). One map lookup once compiled. */
  planFor(tenantId: string): RoutePlan<UpstreamClient> | null {
    const cached = this.#plans.get(tenantId);
    if (cached !== undefined) return cached;
    const stored = this.source.get(tenantId);
    const plan = stored === null ? null : compileRoutes(stored.spec, stored.version, (t, timeouts) => this.#client(t.provider, t.base_url, timeouts));
    this.#plans.set(tenantId, plan);
    return plan;
  }

  /** The tenant's routes changed: compiled again on its next call (breakers start closed). */
  forget(tenantId: string): void {
    this.#plans.delete(tenantId);
  }

  /**
   * The route of the call's model, when the tenant has one: null sends the call the default way. A route none of whose
   * targets speaks the call's format, nor can be reached by translation (OpenAI chat completions only), cannot serve
   * it: refused, nothing sent.
   */
  routeOf(c: ProxyContext): { plan: RoutePlan<UpstreamClient>; model: ModelPlan<UpstreamClient> } | null {
    const plan = this.planFor(c.principal!.tenantId);
    if (plan === null) return null;
    const model = plan.models.get(c.model);
    if (model === undefined) return null;
    if (!model.families.has(familyOf(c.endpoint.wire.provider as Provider)) && !translatable(c.endpoint.kind)) {
      throw new GatewayError('route_not_servable', `model ${c.model} is routed to ${[...model.families].join(' and ')} targets; this call is in ${c.endpoint.wire.provider}'s format, which is translated only from OpenAI chat completions`);
    }
    return { plan, model };
  }

  /**
   * Sends a routed call: each attempt to the next target the order gives, with the next credential of its rotation; a
   * failure the route retries (a status in `retry.on`, `connect`, `timeout`) moves on, at once to another target, after
   * a backoff to the same one, or after the provider's Retry-After up to its cap. Resolves with the answer that is
   * relayed (a success, a failure not retried, or the last one), its head left in `c`; rejects when none came.
   */
  async send(c: ProxyContext, route: { plan: RoutePlan<UpstreamClient>; model: ModelPlan<UpstreamClient> }, base: RoutedSendBase): Promise<UpstreamResponse> {
    const { plan, model } = route;
    const tenantId = c.principal!.tenantId;
    const record: RouteRecord = { attempts: [], model: c.model, target: '' };
    c.route = record;
    const order = attemptOrder(model, this.#now(), this.#random);
    const most = 1 + plan.retry.attempts;
    let sent = 0;
    let failure: { kind: UpstreamFailureKind; target: string } | null = null;
    let untranslatable: GatewayError | null = null;
    // A target that cannot express this call is passed over for the rest of it (translation does not change).
    let inexpressible: Set<RoutedTarget> | null = null;
    let previous: RoutedTarget | null = null;
    const family = familyOf(c.endpoint.wire.provider as Provider);
    for (let i = 0; sent < most && i < order.length * most; i++) {
      if (c.http.aborted) break;
      const choice = order[i % order.length] as RouteChoice<UpstreamClient>;
      const target = choice.target;
      const asked = choice.model ?? c.model;
      const now = this.#now();
      if (!target.breaker.allows(now) && !allOpen(order, now)) continue;
      // A target of another family is reached by translation, when the call's format has one to its provider.
      const translator = target.family === family ? null : translatable(c.endpoint.kind) ? (CHAT_TRANSLATORS[target.provider] ?? undefined) : undefined;
      if (translator === undefined || inexpressible?.has(target)) continue;
      let translated: TranslatedRequest | null = null;
      if (translator !== null) {
        try {
          translated = translator.request(c.request!, asked, target.name);
        } catch (err) {
          if (!(err instanceof GatewayError)) throw err;
          // What this target cannot express (n > 1, audio…): another may; the agent hears why when none can.
          untranslatable = err;
          (inexpressible ??= new Set()).add(target);
          record.attempts.push({ error: 'untranslatable', ms: 0, model: asked, provider: target.provider, target: target.name });
          continue;
        }
      }
      const path = translated === null ? routedPath(c, target, asked) : translated.path;
      if (path === null) continue;
      const credential = nextCredential(target, now);
      if (credential === undefined) {
        record.attempts.push({ error: 'credentials_resting', ms: 0, model: asked, target: target.name });
        continue;
      }
      const secret = credential === null ? undefined : this.#secret(target, tenantId, credential, now);
      if (secret === null) {
        record.attempts.push({ credential: credential as string, error: 'credential_missing', ms: 0, model: asked, target: target.name });
        continue;
      }
      if (sent > 0 && previous === target) await this.#wait(backoffMs(sent, plan.retry.baseMs, plan.retry.maxMs, this.#random));
      previous = target;
      sent++;
      const body = translated === null ? bodyFor(c, choice) : Buffer.from(JSON.stringify(translated.body));
      // One literal of one shape per attempt (no spreads on the path every routed call takes). Translated: the
      // provider's headers, and never the agent's own key or OpenAI's routing headers (theirs, not its).
      const opts = {
        method: base.method,
        path,
        body,
        forwardedKey: translated === null ? base.forwardedKey : '',
        trace: base.trace,
        extraHeaders: translated === null ? base.extraHeaders : NO_HEADERS,
        passHeaders: translated === null ? base.passHeaders : translated.headers,
        cancel: base.cancel,
        credential: secret,
        rawFailure: true,
      };
      const started = this.#now();
      try {
        let up = await target.client.send(opts, c);
        const ms = this.#now() - started;
        record.attempts.push(answered(credential, ms, asked, translator === null ? null : target.provider, up.status, target.name));
        // A credential the provider refused rests as a breaker would; the call goes on at once with the pool's next one.
        const refused = credential !== null && (up.status === 401 || up.status === 403);
        if (refused) restCredential(target, credential, this.#now(), plan.restMs);
        const retried = sent < most && !c.http.aborted && ((plan.retry.statuses.has(up.status) && !REQUEST_AT_FAULT(up.status)) || (refused && target.credentials.length > 1));
        if (up.status >= 500) this.#failed(tenantId, target);
        else if (up.status < 400) target.breaker.succeeded();
        if (!retried) {
          record.target = target.name;
          if (choice.model !== null && up.status < 400) c.model = choice.model;
          if (translator !== null) up = await this.#translated(c, up, translator, asked);
          return up;
        }
        // Not relayed: its body is dropped and the next attempt's head takes its place.
        up.body.destroy();
        c.upstream = null;
        c.upstreamStatus = 0;
        if (refused) previous = null;
        const after = retryAfterMs(up.headers['retry-after'], this.#now());
        if (after !== null) {
          if (credential && up.status === 429) restCredential(target, credential, this.#now(), after);
          if (after <= plan.retry.retryAfterCapMs) await this.#wait(after);
          previous = null;
        }
      } catch (err) {
        if (!(err instanceof UpstreamFailure)) throw err;
        record.attempts.push({ ...(credential ? { credential } : {}), error: err.kind, ms: this.#now() - started, model: asked, target: target.name });
        this.#failed(tenantId, target);
        failure = { kind: err.kind, target: target.name };
        this.options.logger?.warn({ tenantId, target: target.name, model: asked, why: err.kind, traceId: c.http.trace.traceId }, "a route's target gave no answer");
        const retried = err.kind === 'timeout' ? plan.retry.onTimeout : plan.retry.onConnect;
        if (!retried) break;
      }
    }
    if (failure === null && sent === 0 && untranslatable !== null) throw untranslatable;
    if (failure === null) throw new GatewayError('upstream_unavailable', `no target of the route of ${model.name} can be called now (each is resting or has no usable credential)`);
    throw failure.kind === 'timeout'
      ? new GatewayError('upstream_timeout', `target ${failure.target} did not answer in time`)
      : new GatewayError('upstream_unreachable', `target ${failure.target} could not be reached (${failure.kind})`);
  }

  /** The provider's answer as OpenAI's, left in `c` as the answer's head the stages read. */
  async #translated(c: ProxyContext, up: UpstreamResponse, translator: ChatTranslator, model: string): Promise<UpstreamResponse> {
    const options = c.request?.['stream_options'] as { include_usage?: unknown } | undefined;
    const answer = await translateAnswer(up, { translator, model, stream: c.stream, includeUsage: options?.include_usage === true, maxBytes: this.options.maxAnswerBytes });
    c.upstream = answer;
    c.upstreamStatus = answer.status;
    return answer;
  }

  /** A failed attempt on `target`: its breaker counts it, and whoever watches hears when that opened it. */
  #failed(tenantId: string, target: RoutedTarget): void {
    if (target.breaker.failed(this.#now())) this.options.onBreakerOpened?.(tenantId, target.name, target.breaker.openUntil);
  }

  /**
   * A credential's secret, opened at most once every SECRET_TTL_MS per target: unsealing it (an LMDB read and
   * AES-GCM) on every call cost ~40 µs a call (bench:overhead --route one). A change is taken within that time.
   */
  #secret(target: RoutedTarget, tenantId: string, name: string, now: number): string | null {
    const held = target.secrets.get(name);
    if (held !== undefined && now - held.at < SECRET_TTL_MS) return held.secret;
    const secret = this.credentials.resolve(tenantId, name);
    if (secret === null) target.secrets.delete(name);
    else target.secrets.set(name, { secret, at: now });
    return secret;
  }

  #client(provider: RoutedTarget['provider'], baseUrl: string, t: RoutePlan['timeouts']): UpstreamClient {
    const key = `${provider}\u0000${baseUrl}\u0000${t.connectMs}\u0000${t.firstByteMs}\u0000${t.idleStreamMs}`;
    let client = this.#clients.get(key);
    if (client === undefined) {
      const wire = WIRE_FORMATS.find((w) => w.provider === provider);
      client = new UpstreamClient({
        baseUrl,
        apiKey: '',
        keyHeader: wire?.upstreamKeyHeader ?? 'authorization',
        apiKeyMode: 'fill',
        forwardRoutingHeaders: this.options.forwardRoutingHeaders,
        timeoutMs: t.firstByteMs,
        connectTimeoutMs: t.connectMs,
        idleTimeoutMs: t.idleStreamMs,
        connections: this.options.connections,
        egress: this.options.egress,
      });
      this.#clients.set(key, client);
    }
    return client;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((c) => c.close()));
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** An attempt that got an answer, its keys in code-unit order (canonical JSON), one shape per variant, no spreads. */
function answered(credential: string | null, ms: number, model: string, provider: string | null, status: number, target: string): RouteAttempt {
  if (credential === null) return provider === null ? { ms, model, status, target } : { ms, model, provider, status, target };
  return provider === null ? { credential, ms, model, status, target } : { credential, ms, model, provider, status, target };
}

function allOpen(order: readonly RouteChoice[], now: number): boolean {
  return order.every((c) => c.target.breaker.isOpen(now));
}

function restCredential(target: RoutedTarget, name: string, now: number, ms: number): void {
  target.rested.set(name, Math.max(target.rested.get(name) ?? 0, now + ms));
}

/**
 * The bytes sent: the judged request, with the model the target is asked for when the route names another (Gemini's
 * is in the path), or when an OpenAI target gets an Azure call, whose body may name none.
 */
function bodyFor(c: ProxyContext, choice: RouteChoice): Buffer | null {
  if (c.request === null) return null;
  const provider = choice.target.provider;
  const renamed = choice.model !== null && provider !== 'gemini';
  const named = provider === 'openai' && c.request['model'] === undefined;
  // The forward stage serialised the judged request once already.
  if (!renamed && !named) return c.upstreamBody;
  return Buffer.from(JSON.stringify({ ...c.request, model: choice.model ?? c.model }));
}
