import { AduanaError } from './errors.js';
import { startHeartbeatLoop, type HeartbeatLoop } from './heartbeat-loop.js';
import type { Agent, ClientOptions, Decision, Heartbeat, RegisterOptions, ToolCall, Verdict } from './types.js';

interface Envelope {
  decision_id: string;
  execution_status: Verdict;
  risk_score: number;
  latency_ms: number;
  trace_id: string;
}

/**
 * An agent's client for an aduana gateway: register, keep a heartbeat, and ask `/v1/decide` before each tool runs
 * (`process`), for the calls the proxy never sees (tools, calls between agents). Uses only Node's fetch.
 */
export class AduanaClient {
  readonly #base: string;
  readonly #token: string;
  readonly agentId: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#token = options.token;
    this.agentId = options.agentId;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#fetch = options.fetch ?? fetch;
  }

  /** Registers this agent, or updates its profile when it exists (an admin token is needed to change its pack or budget). */
  async register(options: RegisterOptions): Promise<Agent & { created: boolean }> {
    const { body } = await this.#call('POST', '/v1/agents/register', { agent_id: this.agentId, ...options });
    return body as Agent & { created: boolean };
  }

  /** One heartbeat; `status` is what the agent reports of itself (a free label such as "idle" or "busy"). */
  async heartbeat(report: { status?: string; metadata?: Record<string, unknown> } = {}): Promise<Heartbeat> {
    const { body } = await this.#call('POST', '/v1/heartbeat', { agent_id: this.agentId, ...report });
    return body as Heartbeat;
  }

  /**
   * Heartbeats every `intervalMs` (the gateway's HEARTBEAT_INTERVAL_S, 30 s by default) until `stop()`. Failures are
   * passed to `onError` (default: ignored) and the loop keeps going.
   */
  startHeartbeats(intervalMs = 30_000, onError: (err: unknown) => void = () => undefined, report: () => { status?: string; metadata?: Record<string, unknown> } = () => ({})): HeartbeatLoop {
    return startHeartbeatLoop(() => this.heartbeat(report()), intervalMs, onError);
  }

  /** The agent as the gateway sees it. */
  async agent(): Promise<Agent> {
    const { body } = await this.#call('GET', `/v1/agents/${encodeURIComponent(this.agentId)}`);
    return body as Agent;
  }

  /**
   * Asks the gateway to judge a tool call before it runs. Run the tool only when `allowed`; a held verdict
   * (REQUIRE_APPROVAL, ESCALATE) waits for an admin's resolution of `decisionId`.
   */
  async process(call: ToolCall): Promise<Decision> {
    const context: Record<string, unknown> = {};
    if (call.sessionId !== undefined) context['session_id'] = call.sessionId;
    if (call.riskBudget !== undefined) context['risk_budget'] = call.riskBudget;
    const action: Record<string, unknown> = { type: call.type };
    if (call.target !== undefined) action['target'] = call.target;
    if (call.method !== undefined) action['method'] = call.method;
    if (call.payload !== undefined) action['payload'] = call.payload;
    const { body, headers } = await this.#call('POST', '/v1/decide', { agent_id: this.agentId, action, ...(Object.keys(context).length ? { context } : {}) });
    const envelope = (body as { envelope: Envelope; trace_id: string }).envelope;
    return {
      verdict: envelope.execution_status,
      allowed: envelope.execution_status === 'ALLOW',
      decisionId: envelope.decision_id,
      traceId: (body as { trace_id: string }).trace_id,
      riskScore: envelope.risk_score,
      rule: headers.get('x-svc-rule') ?? '',
      policyVersion: headers.get('x-svc-policy') ?? '',
      latencyMs: envelope.latency_ms,
    };
  }

  async #call(method: 'GET' | 'POST', path: string, json?: unknown): Promise<{ body: unknown; headers: Headers }> {
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (err) {
      throw new AduanaError(`gateway unreachable: ${err instanceof Error ? err.message : String(err)}`, 0, 'network_error', '', '');
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!res.ok) {
      const e = (body as { error?: { type?: string; message?: string; rule?: string; traceId?: string } } | null)?.error;
      throw new AduanaError(e?.message ?? `HTTP ${res.status}`, res.status, e?.type ?? 'http_error', e?.rule ?? '', e?.traceId ?? res.headers.get('x-svc-trace-id') ?? '');
    }
    return { body, headers: res.headers };
  }
}
