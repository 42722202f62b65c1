import { isoTime } from '@aduana/shared';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { DecisionRecord } from '../decisions/decision-store.js';
import type { ProxyContext } from './proxy-context.js';

/**
 * Every call that reached a verdict goes into the decision index and the tenant's hash chain (once): the decision
 * record, the proxy's own fields (endpoint, outcome, usage, cost, hash of the bytes relayed), and its session bond.
 * Throws when the ledger refuses the entry. The chain entry is queued here; the decision index and the observers are
 * left to `indexProxyCall` (`c.unindexed`), which the pipeline runs once the answer is written.
 */
export function recordProxyCall(c: ProxyContext, audit: AuditTrail): void {
  c.recorded = true;
  const p = c.principal;
  if (!p || (c.decisionId === '' && c.endpoint.governed)) return;
  const triggered = [...(c.evaluation?.triggered ?? []), ...c.outputTriggered];
  const d: DecisionRecord = {
    decision_id: c.decisionId,
    tenant_id: p.tenantId,
    agent_id: c.http.agentId,
    execution_status: c.verdict,
    risk_score: c.riskScore,
    event_type: c.endpoint.eventType,
    trace_id: c.http.trace.traceId,
    created_at: isoTime(Date.now()),
    rule: c.rule,
    policy_version: c.policySet?.label ?? '',
    policies_evaluated: c.evaluation?.policiesEvaluated ?? 0,
    triggered,
    resolution: null,
    latency_ms: Math.round(c.governanceMs * 1000) / 1000,
    cost_brl: c.costBrl,
  };
  audit.chain(
    d,
    // Keys in code-unit order: the ledger's canonical JSON is then the native stringify (AuditTrail.record).
    {
      cost_brl: c.costBrl,
      endpoint: c.endpoint.kind,
      governance_us: Math.round(c.governanceMs * 1000),
      input_redactions: c.inputRedactions,
      model: c.model,
      outcome: c.outcome,
      output_redactions: c.outputRedactions,
      output_sha256: c.outputHash,
      stream: c.stream,
      upstream_status: c.upstreamStatus,
      usage: c.usage,
    },
    { decision_id: c.decisionId, session_id: c.sessionId },
  );
  c.unindexed = d;
}

/** The decision index and the observers for a call whose chain entry `recordProxyCall` queued (once). */
export function indexProxyCall(c: ProxyContext, audit: AuditTrail): void {
  const d = c.unindexed;
  if (d === null) return;
  c.unindexed = null;
  audit.index(d, c.governanceMs, c.outcome, c.costBrl);
}
