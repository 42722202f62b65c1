import { performance } from 'node:perf_hooks';
import { isoTime, newId } from '@aduana/shared';
import { assertAgent, type Principal } from '../../identity/auth/principal.js';
import { headedText } from '../../policy/input-text.js';
import type { DecisionEnvelope } from '../decisions/decision-engine.js';
import type { AuditTrail } from '../audit-trail.js';
import { decisionRecord } from '../decision-record.js';
import type { EventsLedger, LedgerEntry, LedgerInput } from '../../ledger/index.js';
import type { TenantRuntimes } from '../../policy/runtime/tenant-runtime.js';
import type { IngestEvent } from './ingest-event.js';

export interface Ingested {
  envelope: Omit<DecisionEnvelope, 'policies_evaluated'>;
  entry: LedgerEntry;
}

/**
 * POST /v1/events and the batch endpoint: each event is risk-scored by the tenant's compiled policies (score only:
 * no rate windows counted, no session risk accumulated), then the whole set is appended to the tenant's chain in one
 * transaction and flushed to disk before this resolves (an acknowledged event is never lost), then each decision is
 * indexed through the audit trail.
 */
export class EventIngestor {
  constructor(
    private readonly runtimes: TenantRuntimes,
    private readonly ledger: EventsLedger,
    private readonly audit: AuditTrail,
  ) {}

  async ingest(principal: Principal, events: readonly IngestEvent[], traceId: string, startedAt: number): Promise<Ingested[]> {
    const tenantId = principal.tenantId;
    const tenantSet = this.runtimes.sets.policySet(tenantId);
    const state = this.runtimes.limits.state(tenantId);
    this.runtimes.limits.admitEvaluation(tenantId);
    const scoringStarted = performance.now();
    const now = Date.now();
    const createdAt = isoTime(now);
    // A bound token's events are its agent's: a different agent id is refused, a missing one is filled in.
    if (principal.agentId !== null) {
      for (const ev of events) {
        const named = ev.metadata?.agent_id;
        if (named !== undefined) assertAgent(principal, named);
        else ev.metadata = { ...ev.metadata, agent_id: principal.agentId };
      }
    }
    const scored = events.map((ev) => {
      const text = headedText([ev.event_type], ev.payload);
      const agentId = ev.metadata?.agent_id ?? '';
      // Each event by the policies whose scope it matches: an event names its agent, never a model, server or tool.
      const set = tenantSet.narrow('events', agentId);
      const evaluation = set.evaluate(
        { tenantId, agentId, sessionId: ev.metadata?.session_id ?? '', riskBudget: null, agentRiskBudget: null, text, now, scoreOnly: true },
        state,
      );
      return { ev, agentId, evaluation, decisionId: newId('dec') };
    });
    this.runtimes.limits.chargeEvaluation(tenantId, performance.now() - scoringStarted);
    const inputs: LedgerInput[] = scored.map(({ ev, evaluation, decisionId }) => ({
      event_type: ev.event_type,
      payload: ev.payload,
      metadata: ev.metadata ?? {},
      // Keys in RFC 8785 order: the entry's canonical text then needs no sorted copy of this object.
      decision: {
        decision_id: decisionId,
        execution_status: evaluation.verdict,
        policy_version: tenantSet.label,
        risk_score: evaluation.riskScore,
        rule: evaluation.rule,
        trace_id: traceId,
      },
      created_at: createdAt,
    }));
    const entries = await this.ledger.append(tenantId, inputs);
    const latency = Math.round((performance.now() - startedAt) * 1000) / 1000;
    return scored.map(({ ev, agentId, evaluation, decisionId }, i) => {
      // Indexed through the audit trail like every other door's decisions, so its observers (telemetry, the agent's
      // risk, Prometheus) see them too; the entries themselves are chained and flushed above.
      const d = decisionRecord({ decisionId, tenantId, agentId, eventType: ev.event_type, traceId, createdAt, latencyMs: latency }, evaluation, tenantSet.label);
      this.audit.index(d, latency);
      return {
        envelope: { decision_id: decisionId, execution_status: evaluation.verdict, risk_score: evaluation.riskScore, latency_ms: latency, trace_id: traceId, tenant_id: tenantId, timestamp: createdAt },
        entry: entries[i] as LedgerEntry,
      };
    });
  }
}
