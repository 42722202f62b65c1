import type { Triggered } from '../policy/evaluation.js';
import type { DecisionRecord } from './decisions/decision-store.js';
import type { Verdict } from '../policy/verdict.js';

/** A call's judgement as recorded: its verdict, rule and risk (an answer's checks folded in) and what triggered. */
export interface Judged {
  readonly verdict: Verdict;
  readonly riskScore: number;
  readonly rule: string;
  readonly policiesEvaluated: number;
  readonly triggered: Triggered[];
}

/** What a door knows of the call itself. */
export interface CallFacts {
  readonly decisionId: string;
  readonly tenantId: string;
  readonly agentId: string;
  /** The ledger event type: the door and what was called (`decision`, `mcp.tools.call`, `proxy.chat.completions`, an event's own). */
  readonly eventType: string;
  readonly traceId: string;
  readonly createdAt: string;
  /** Governance time, ms (rounded to µs here). */
  readonly latencyMs: number;
}

/**
 * The one shape of a decision record, built the same on every door (the proxy, MCP, /v1/decide, events) from the call,
 * its judgement and the label of the policy set that judged it (`PolicySet.label`); it then goes through the audit
 * trail (its ledger entry, the decision index and the observers).
 */
export function decisionRecord(call: CallFacts, judged: Judged, policyVersion: string): DecisionRecord {
  return {
    decision_id: call.decisionId,
    tenant_id: call.tenantId,
    agent_id: call.agentId,
    execution_status: judged.verdict,
    risk_score: judged.riskScore,
    event_type: call.eventType,
    trace_id: call.traceId,
    created_at: call.createdAt,
    rule: judged.rule,
    policy_version: policyVersion,
    policies_evaluated: judged.policiesEvaluated,
    triggered: judged.triggered,
    resolution: null,
    latency_ms: Math.round(call.latencyMs * 1000) / 1000,
  };
}
