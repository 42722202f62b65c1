import { isoTime, type Logger } from '@aduana/shared';
import type { AuditTrail } from '../governance/audit-trail.js';
import { decisionRecord } from '../governance/decision-record.js';
import { GatewayError } from '../errors.js';
import type { ProxyContext } from './proxy-context.js';
import type { Stage } from './stages/stage.js';

const us = (ms: number): number => Math.round(ms * 1000);

/**
 * Where a call's time went, µs (the decision page's latency by stage, docs/console.md): governance before the upstream
 * request (`request`, of which `policies` and `redaction`), the provider's time (`upstream`; for a stream, until its
 * last event was relayed, less the time spent judging its events) and the checks on the answer (`answer`). Zero where
 * a call never got that far.
 */
function stagesUs(c: ProxyContext): { answer: number; policies: number; redaction: number; request: number; upstream: number } {
  const answer = c.governanceMs - c.beforeUpstreamMs;
  const upstream = c.forwardedAt === 0 || c.upstreamDoneAt === 0 ? 0 : c.upstreamDoneAt - c.forwardedAt - (c.streamed ? answer : 0);
  return { answer: us(answer), policies: us(c.policiesMs), redaction: us(c.redactionMs), request: us(c.beforeUpstreamMs), upstream: us(Math.max(0, upstream)) };
}

/** What sees each indexed call once it was answered: the sampled request log (request-log/request-log.ts). */
export interface CallSampler {
  afterCall(c: ProxyContext): void;
}

/**
 * A proxied call's record, owned here from start to end (as OPA's decision-log plugin owns a decision's life): its
 * chain entry, handed to the ledger before a whole answer is written (committed in the group commit after it: no wait
 * on the request path), then the decision index, the observers and the request log's sampler once the answer went out.
 * A whole answer whose entry the ledger refuses is withheld (500); a stream, already relayed, and a refusal are
 * recorded after the answer, where a refusal can only be logged.
 */
export class CallRecorder {
  constructor(
    private readonly audit: AuditTrail,
    private readonly logger: Logger,
    private readonly sampler: CallSampler | null = null,
  ) {}

  /** The pipeline's stage for a whole answer's entry, before the answer is written. */
  stage(): Stage {
    return {
      name: 'record',
      run: (c) => {
        if (c.streamed) return;
        try {
          this.#chain(c);
        } catch (err) {
          c.outcome = 'error';
          this.logger.error({ err, traceId: c.http.trace.traceId }, 'ledger refused a proxy entry; answer withheld');
          throw new GatewayError('internal', 'the call could not be recorded in the ledger; its answer is withheld');
        }
      },
    };
  }

  /** Once the call was answered, whatever happened: its entry if not made yet, then its index and observers. */
  afterAnswer(c: ProxyContext): void {
    try {
      if (c.record === 'pending') this.#chain(c);
    } catch (err) {
      this.logger.error({ err, traceId: c.http.trace.traceId }, 'ledger refused a proxy entry');
      return;
    }
    const d = c.indexed;
    if (d === null) return;
    c.indexed = null;
    this.audit.index(d, c.governanceMs, c.outcome, c.costBrl, c.route);
    this.sampler?.afterCall(c);
  }

  /**
   * Every call that reached a verdict goes into the tenant's hash chain (once): the decision record, the proxy's own
   * fields (endpoint, outcome, usage, cost, hash of the bytes relayed), and its session bond. Throws when the ledger
   * refuses the entry.
   */
  #chain(c: ProxyContext): void {
    c.record = 'made';
    const p = c.principal;
    if (!p || (c.decisionId === '' && c.endpoint.governed)) return;
    const d = decisionRecord(
      { decisionId: c.decisionId, tenantId: p.tenantId, agentId: c.http.agentId, eventType: c.endpoint.eventType, traceId: c.http.trace.traceId, createdAt: isoTime(Date.now()), latencyMs: c.governanceMs },
      {
        verdict: c.verdict,
        riskScore: c.riskScore,
        rule: c.rule,
        policiesEvaluated: c.evaluation?.policiesEvaluated ?? 0,
        triggered: [...(c.evaluation?.triggered ?? []), ...c.outputTriggered],
      },
      c.policySet?.label ?? '',
    );
    d.cost_brl = c.costBrl;
    // What the console's costs page sums by model: only for calls whose usage was reported.
    if (c.usage) {
      d.model = c.model;
      d.prompt_tokens = c.usage.prompt_tokens;
      d.completion_tokens = c.usage.completion_tokens;
      if (!c.priced) d.unpriced = true;
    }
    this.audit.chain(
      d,
      // Keys in code-unit order: the ledger's canonical JSON is then the native stringify (AuditTrail.record).
      {
        cost_brl: c.costBrl,
        // Azure's: the deployment the path named (what model_access judged beside the model, and a dry run judges again).
        ...(c.deployment ? { deployment: c.deployment } : undefined),
        endpoint: c.endpoint.kind,
        governance_us: us(c.governanceMs),
        // Per entity only when something was redacted: the other entries keep their shape.
        ...(c.inputRedactionEntities ? { input_redaction_entities: c.inputRedactionEntities } : undefined),
        input_redactions: c.inputRedactions,
        model: c.model,
        outcome: c.outcome,
        ...(c.outputRedactionEntities ? { output_redaction_entities: c.outputRedactionEntities } : undefined),
        output_redactions: c.outputRedactions,
        output_sha256: c.outputHash,
        // Only on a call whose model no price table lists (its cost_brl is then 0): the other entries keep their shape.
        ...(c.priced ? undefined : { priced: false }),
        // A routed call: the model asked for, the target that answered and every attempt (docs/routing.md).
        ...(c.route ? { route: c.route } : undefined),
        stages_us: stagesUs(c),
        stream: c.stream,
        upstream_status: c.upstreamStatus,
        usage: c.usage,
      },
      { decision_id: c.decisionId, session_id: c.sessionId },
    );
    c.indexed = d;
  }
}
