import { performance } from 'node:perf_hooks';
import type { Logger } from '@aduana/shared';
import type { DecisionRecord, DecisionStore } from './decisions/decision-store.js';
import type { EventsLedger, LedgerInput } from '../ledger/index.js';
import { planChangedEntry, type PlanChange } from '../identity/tenants/plan-change.js';
import { adminActionEntry, type AdminActionInput } from './admin-actions.js';

/**
 * A routed call's attempts as its ledger entry lists them (`route`, docs/routing.md): each attempt's target, the model
 * it was asked for and its status or failure, and the target whose answer was relayed ('' for none).
 */
export interface ObservedRoute {
  readonly attempts: readonly { readonly error?: string; readonly model: string; readonly status?: number; readonly target: string }[];
  readonly target: string;
}

/**
 * Told of every recorded decision (telemetry, the agents' risk scores): the one point every decision passes, so no
 * request path feeds telemetry directly. `latencyMs` is the governance time; `outcome` the proxy call's end, or null;
 * `costBrl` its token cost; `route` a routed call's attempts, or null. Observers only touch memory: they run on the
 * request path.
 */
export type DecisionObserver = (d: DecisionRecord, latencyMs: number, outcome: string | null, costBrl: number, route: ObservedRoute | null) => void;

/**
 * Where every decision goes: the decision index (GET /admin/decisions, resolve) and the tenant's hash chain in the
 * ledger, decisions and proxy calls in the same chain. Neither write is awaited on the request path: the decision is
 * in LMDB's next batched commit, the ledger entry is group-committed within LEDGER_GROUP_COMMIT_MS (docs/decisions.md), and
 * shutdown flushes both.
 */
export class AuditTrail {
  #observers: DecisionObserver[] = [];
  #appendTimer: ((seconds: number) => void) | null = null;

  constructor(
    private readonly decisions: DecisionStore,
    private readonly ledger: EventsLedger,
    private readonly logger: Logger,
  ) {}

  /**
   * Throws (synchronously, before anything is written) when the ledger refuses the entry, so the caller can refuse the
   * call rather than serve it unrecorded; a later disk failure is logged. `payload` and `metadata` are cheapest with
   * their keys in code-unit order (any order is canonicalised correctly). `chain` then `index`.
   */
  record(d: DecisionRecord, payload: Record<string, unknown>, metadata: Record<string, unknown> = {}, latencyMs = 0, outcome: string | null = null, costBrl = 0): void {
    this.chain(d, payload, metadata);
    this.index(d, latencyMs, outcome, costBrl);
  }

  /** The ledger half of `record`: the entry queued for the next group commit, or a synchronous throw if refused. */
  chain(d: DecisionRecord, payload: Record<string, unknown>, metadata: Record<string, unknown> = {}): void {
    // Keys in RFC 8785 order, so the ledger's canonical JSON is the native JSON.stringify (shared canonicalJson).
    // The callers' metadata (session and decision ids) sorts between the record's agent and trace ids.
    const appended = this.ledger.enqueueGrouped(d.tenant_id, {
      created_at: d.created_at,
      decision: {
        decision_id: d.decision_id,
        execution_status: d.execution_status,
        policies_evaluated: d.policies_evaluated,
        policy_version: d.policy_version,
        risk_score: d.risk_score,
        rule: d.rule,
        triggered: d.triggered.map((t) => ({ action: t.action, policy_id: t.policyId, risk: t.risk, type: t.type })),
      },
      event_type: d.event_type,
      metadata: { agent_id: d.agent_id, ...metadata, trace_id: d.trace_id },
      payload,
    });
    const failed = (err: unknown) => this.logger.error({ err, decisionId: d.decision_id }, 'ledger append failed');
    const timer = this.#appendTimer;
    if (timer === null) appended.catch(failed);
    else {
      const queuedAt = performance.now();
      appended.then(() => timer((performance.now() - queuedAt) / 1000), failed);
    }
  }

  /**
   * The other half: the decision index (its write not awaited, a failure logged by the store) and the observers. It
   * never refuses, so the proxy runs it after the answer went out, in the same turn (before any other request).
   */
  index(d: DecisionRecord, latencyMs = 0, outcome: string | null = null, costBrl = 0, route: ObservedRoute | null = null): void {
    void this.decisions.record(d);
    this.observed(d, latencyMs, outcome, costBrl, route);
  }

  /** Tells the observers of a decision (one a request thread indexed itself comes here through its message). */
  observed(d: DecisionRecord, latencyMs = 0, outcome: string | null = null, costBrl = 0, route: ObservedRoute | null = null): void {
    const observers = this.#observers;
    for (let i = 0; i < observers.length; i++) (observers[i] as DecisionObserver)(d, latencyMs, outcome, costBrl, route);
  }

  /** Told how long each entry took from queued to flushed, seconds (at start; the ledger's append latency metric). */
  timeAppends(timer: (seconds: number) => void): void {
    this.#appendTimer = timer;
  }

  /** Adds an observer (at start). */
  observe(observer: DecisionObserver): void {
    this.#observers = [...this.#observers, observer];
  }

  /** A held decision's resolution, chained after the decision itself. */
  async recordResolution(d: DecisionRecord): Promise<void> {
    await this.ledger.append(d.tenant_id, [decisionResolvedEntry(d)]);
  }

  /** A tenant's plan change, chained once it is stored (`metadata`: the request's trace id, or the bundle that brought it). */
  async recordPlanChange(tenantId: string, change: PlanChange, metadata: Record<string, unknown>): Promise<void> {
    await this.ledger.append(tenantId, [planChangedEntry(change, metadata)]);
  }

  /** An admin action (a policy, token, user or agent changed), chained once it is stored (`traceId`: the request's). */
  async recordAdminAction(tenantId: string, input: AdminActionInput, traceId: string): Promise<void> {
    await this.ledger.append(tenantId, [adminActionEntry(input, { trace_id: traceId })]);
  }
}

/** The entry that records a held decision's resolution (here, at a sidecar, and in the control plane's own chain). */
export function decisionResolvedEntry(d: DecisionRecord): LedgerInput {
  return {
    event_type: 'decision.resolved',
    payload: { decision_id: d.decision_id, resolution: d.resolution },
    metadata: { agent_id: d.agent_id, trace_id: d.trace_id },
    decision: null,
  };
}
