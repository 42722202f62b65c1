import { isoTime } from '@aduana/shared';
import type { AuditTrail } from '../governance/audit-trail.js';
import { decisionRecord } from '../governance/decision-record.js';
import type { Evaluation, Triggered } from '../policy/evaluation.js';
import { foldOutputVerdict } from '../governance/output-verdict.js';
import type { Verdict } from '../policy/verdict.js';
import type { EntityTally } from '../policy/pii/entity-tally.js';
import type { Json } from './jsonrpc.js';

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
  /** Null unless the call was drawn for the request log: then what its sample will hold, by reference (no copy). */
  sample: ToolCallSampleDraft | null;
}

/**
 * A drawn tools/call's texts as objects, serialised only when the call is recorded (docs/console.md, "Request log"):
 * the arguments once forwarded after input redaction (null when refused: they were never redacted, so never kept) and
 * the result once it passed output governance (null when the gateway answered in its place).
 */
export interface ToolCallSampleDraft {
  arguments: Json | null;
  result: Json | null;
  /** The result came as an event of an SSE answer. */
  streamed: boolean;
}

/** What sees each recorded tools/call of a tenant with the request log on (request-log/request-log.ts). */
export interface ToolCallSampler {
  /** Whether a call of this tenant is drawn: one map lookup, and one random draw for an enabled tenant. */
  draws(tenantId: string): boolean;
  /** Once a drawn call was recorded and indexed: its sample sealed and written off the request path. */
  afterToolCall(r: ToolCallRecord): void;
}

/**
 * Owns a tools/call's record (as proxy/call-record.ts owns a proxied call's): its ledger entry and index, then the
 * request log's sample when the call was drawn. Without a sampler (no REQUEST_LOG_KEY, or a sidecar) nothing is drawn.
 */
export class ToolCallRecorder {
  constructor(
    private readonly audit: AuditTrail,
    private readonly sampler: ToolCallSampler | null = null,
  ) {}

  /** A new call's draft sample when the tenant's rate draws it, else null (the only work for a call not drawn). */
  draw(tenantId: string): ToolCallSampleDraft | null {
    return this.sampler !== null && this.sampler.draws(tenantId) ? { arguments: null, result: null, streamed: false } : null;
  }

  /**
   * `verdict` and `rule` stand for the call's own (its judgement, with what its result triggered folded in) where an
   * administrator's resolution decided it.
   */
  record(r: ToolCallRecord, outcome: ToolCallOutcome, verdict?: Verdict, rule?: string): void {
    recordToolCall(this.audit, r, outcome, verdict, rule);
    if (r.sample !== null) this.sampler?.afterToolCall(r);
  }
}

/**
 * Every tools/call is one entry in the tenant's chain (event type `mcp.tools.call`): its decision (verdict, rule,
 * triggered policies), the server and tool, the arguments by their SHA-256 (never the arguments: they may be
 * personal data), redaction counts, duration and outcome; then the decision index, which feeds the console's
 * decisions page and the telemetry metrics.
 */
function recordToolCall(audit: AuditTrail, r: ToolCallRecord, outcome: ToolCallOutcome, verdict?: Verdict, rule?: string): void {
  // What the result triggered is folded in as the proxy folds an answer's checks (most severe wins, risks combined).
  const e = r.evaluation;
  const folded = r.outputTriggered.length === 0 ? e : foldOutputVerdict(e.verdict, e.rule, e.triggered, r.outputTriggered);
  const d = decisionRecord(
    { decisionId: r.decisionId, tenantId: r.tenantId, agentId: r.agentId, eventType: 'mcp.tools.call', traceId: r.traceId, createdAt: isoTime(r.startedAt), latencyMs: r.governanceMs },
    {
      verdict: verdict ?? folded.verdict,
      riskScore: folded.riskScore,
      rule: rule ?? folded.rule,
      policiesEvaluated: e.policiesEvaluated,
      triggered: [...e.triggered, ...r.outputTriggered],
    },
    r.policyLabel,
  );
  d.cost_brl = 0;
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
