import { isoTime } from '@aduana/shared';
import type { AuditTrail } from '../ledger/audit-trail.js';
import type { DecisionRecord } from '../policy/decisions/decision-store.js';
import type { Evaluation, Triggered } from '../policy/evaluation.js';
import type { EntityTally } from '../policy/pii/entity-tally.js';

/** What became of a tools/call. */
export type ToolCallOutcome = 'completed' | 'tool_error' | 'blocked' | 'held' | 'upstream_error' | 'client_aborted';

/** One governed tools/call, from its judgement to its result. */
export interface ToolCallRecord {
  decisionId: string;
  tenantId: string;
  agentId: string;
  sessionId: string;
  traceId: string;
  server: string;
  tool: string;
  argumentsSha256: string;
  policyLabel: string;
  evaluation: Evaluation;
  /** Output checks that triggered on the result. */
  outputTriggered: Triggered[];
  inputRedactions: number;
  outputRedactions: number;
  /** Redactions per entity, once any. */
  inputRedactionEntities: EntityTally | null;
  outputRedactionEntities: EntityTally | null;
  startedAt: number;
  governanceMs: number;
}

/**
 * Every tools/call is one entry in the tenant's chain (event type `mcp.tools.call`): its decision (verdict, rule,
 * triggered policies), the server and tool, the arguments by their SHA-256 (never the arguments: they may be
 * personal data), redaction counts, duration and outcome; then the decision index, which feeds the console's
 * decisions page and the telemetry metrics.
 */
export function recordToolCall(audit: AuditTrail, r: ToolCallRecord, outcome: ToolCallOutcome, verdict = r.evaluation.verdict, rule = r.evaluation.rule): void {
  const d: DecisionRecord = {
    decision_id: r.decisionId,
    tenant_id: r.tenantId,
    agent_id: r.agentId,
    execution_status: verdict,
    risk_score: r.evaluation.riskScore,
    event_type: 'mcp.tools.call',
    trace_id: r.traceId,
    created_at: isoTime(r.startedAt),
    rule,
    policy_version: r.policyLabel,
    policies_evaluated: r.evaluation.policiesEvaluated,
    triggered: [...r.evaluation.triggered, ...r.outputTriggered],
    resolution: null,
    latency_ms: Math.round(r.governanceMs * 1000) / 1000,
    cost_brl: 0,
  };
  // Keys in code-unit order: the ledger's canonical JSON is then the native stringify (AuditTrail.record).
  audit.chain(
    d,
    {
      arguments_sha256: r.argumentsSha256,
      duration_ms: Math.round((Date.now() - r.startedAt) * 1000) / 1000,
      ...(r.inputRedactionEntities ? { input_redaction_entities: r.inputRedactionEntities } : undefined),
      input_redactions: r.inputRedactions,
      outcome,
      ...(r.outputRedactionEntities ? { output_redaction_entities: r.outputRedactionEntities } : undefined),
      output_redactions: r.outputRedactions,
      server: r.server,
      tool: r.tool,
    },
    { decision_id: r.decisionId, session_id: r.sessionId },
  );
  audit.index(d, r.governanceMs, outcome, 0);
}
