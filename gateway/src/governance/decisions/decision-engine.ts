import { performance } from 'node:perf_hooks';
import { isoTime, newId, sha256Hex } from '@aduana/shared';
import type { Principal } from '../../identity/auth/principal.js';
import type { TenantLimits } from '../../policy/runtime/tenant-limits.js';
import { SUSPENDED, type CallerAdmission } from '../caller-admission.js';
import { decisionRecord } from '../decision-record.js';
import type { Evaluation } from '../../policy/evaluation.js';
import type { PolicySet } from '../../policy/compile-policy-set.js';
import type { AuditTrail } from '../audit-trail.js';
import { actionText, type DecideRequest } from './decide-request.js';
import { fromLedgerError } from '../../ledger/events/ledger-errors.js';

/** The decision envelope `/v1/decide` answers. */
export interface DecisionEnvelope {
  decision_id: string;
  execution_status: Evaluation['verdict'];
  risk_score: number;
  latency_ms: number;
  trace_id: string;
  tenant_id: string;
  policies_evaluated?: number;
  timestamp: string;
}

export interface DecideOutcome {
  envelope: DecisionEnvelope;
  evaluation: Evaluation;
  policyLabel: string;
}

/**
 * `POST /v1/decide`: evaluates an intended action with the tenant's compiled policy set and records the decision in
 * the audit trail (decision index + ledger); the answer does not wait for the disk (see AuditTrail).
 */
export class DecisionEngine {
  constructor(
    private readonly limits: TenantLimits,
    private readonly audit: AuditTrail,
    private readonly admission: CallerAdmission,
  ) {}

  /**
   * `rawBody`: the request's bytes, whose SHA-256 the ledger keeps instead of the payload (like proxy entries keep the
   * answer's hash): it commits to exactly what was decided without re-encoding a large payload on every decision.
   */
  decide(principal: Principal, req: DecideRequest, traceId: string, startedAt: number, rawBody: Buffer | null = null): DecideOutcome | Promise<DecideOutcome> {
    const tenantId = principal.tenantId;
    const now = Date.now();
    const admitted = this.admission.admit(principal, req.agent_id, now);
    const agent = admitted.agent;
    // A tool call names its tool in `target`; tool_access judges it as a tool of no MCP server (and a scope by tool reads it).
    const tool = req.action.type === 'tool_call' ? (req.action.target ?? '') : undefined;
    const set = admitted.set.narrow('decide', req.agent_id, undefined, undefined, tool);
    // A suspended agent's decisions are DENY with rule agent_suspended, recorded like any other (docs/agents.md).
    if (agent.suspended) return this.#record(principal, req, traceId, startedAt, rawBody, set, now, SUSPENDED);
    const judged = this.limits.judge(set, {
      tenantId,
      agentId: req.agent_id,
      sessionId: req.context?.session_id ?? '',
      riskBudget: req.context?.risk_budget ?? null,
      agentRiskBudget: agent.riskBudget,
      text: actionText(req),
      now,
      ...(tool === undefined ? {} : { tool: { name: tool, server: '' } }),
    });
    // A promise only when rate_limit windows are counted on Redis (docs/fleet.md, "Shared limits").
    if (judged instanceof Promise) return judged.then((evaluation) => this.#record(principal, req, traceId, startedAt, rawBody, set, now, evaluation));
    return this.#record(principal, req, traceId, startedAt, rawBody, set, now, judged);
  }

  /** The envelope of a judged action, with its decision recorded (decision index and ledger). */
  #record(principal: Principal, req: DecideRequest, traceId: string, startedAt: number, rawBody: Buffer | null, set: PolicySet, now: number, evaluation: Evaluation): DecideOutcome {
    const tenantId = principal.tenantId;
    const decisionId = newId('dec');
    const timestamp = isoTime(now);
    const envelope: DecisionEnvelope = {
      decision_id: decisionId,
      execution_status: evaluation.verdict,
      risk_score: evaluation.riskScore,
      latency_ms: 0,
      trace_id: traceId,
      tenant_id: tenantId,
      policies_evaluated: evaluation.policiesEvaluated,
      timestamp,
    };
    envelope.latency_ms = Math.round((performance.now() - startedAt) * 1000) / 1000;
    // The ledger keeps the context's known fields (the request's hash commits to the rest): an entry stays bounded.
    const context = req.context ? { risk_budget: req.context.risk_budget ?? null, session_id: req.context.session_id ?? null } : null;
    try {
      this.audit.record(
        decisionRecord({ decisionId, tenantId, agentId: req.agent_id, eventType: 'decision', traceId, createdAt: timestamp, latencyMs: envelope.latency_ms }, evaluation, set.label),
        {
          action: { method: req.action.method ?? null, target: req.action.target ?? null, type: req.action.type },
          context,
          latency_ms: envelope.latency_ms,
          request_sha256: rawBody ? sha256Hex(rawBody) : null,
        },
        { session_id: req.context?.session_id ?? '' },
        envelope.latency_ms,
      );
    } catch (err) {
      // Refused by the ledger: no answer without its entry.
      throw fromLedgerError(err);
    }
    return { envelope, evaluation, policyLabel: set.label };
  }
}

