import type { PolicyAction, PolicyType } from './policy-record.js';
import type { Verdict } from './verdict.js';

/** What the evaluator looks at for one request. */
export interface EvaluationInput {
  tenantId: string;
  agentId: string;
  /** Session key for bond enforcement ('' = the agent is the session). */
  sessionId: string;
  /** Session risk budget from the request (DecideRequest context.risk_budget), or null. */
  riskBudget: number | null;
  /** Agent's configured budget (agent registry), or null. */
  agentRiskBudget: number | null;
  /** All text of the input, joined with '\n'. */
  text: string;
  now: number;
  /**
   * Score without acting: rate-limit windows are not counted and session risk is not accumulated (ingested events
   * are records of what happened, not requests to act).
   */
  scoreOnly?: boolean;
  /**
   * The tool this input would use, judged by the tenant's `tool_access` policies: a `/v1/decide` tool call, an MCP
   * tool call. `server` is the MCP server's name (MCP_UPSTREAMS), '' for a tool of no server.
   */
  tool?: { name: string; server: string };
  /**
   * The model this input asks for, judged by the tenant's `model_access` policies: the name the agent wrote (a route's
   * alias before it is resolved). Absent: the input names no model (/v1/decide, events, MCP) and no such policy judges
   * it; '' is the empty name, which no `allow` list matches.
   */
  model?: string;
  /**
   * Azure only: the deployment the path names, which Azure serves whatever the body's `model` says (that one picks a
   * route). When it differs from `model` it is judged as a model name too: a policy triggers when either name does.
   * Absent or '': none (every other format).
   */
  deployment?: string;
}

export interface Triggered {
  policyId: string;
  type: PolicyType;
  action: PolicyAction;
  risk: number;
  reason: string;
}

export interface Evaluation {
  verdict: Verdict;
  riskScore: number;
  /** Id of the policy that decided the verdict ('' when ALLOW with nothing triggered). */
  rule: string;
  policiesEvaluated: number;
  triggered: Triggered[];
  /** True when a REDACT pii policy found personal data in the input: the proxy rewrites it. */
  redactInput: boolean;
}

export interface OutputEvaluation {
  verdict: Verdict;
  rule: string;
  riskScore: number;
  triggered: Triggered[];
}
