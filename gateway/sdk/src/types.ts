/** What an agent sends and gets back (the gateway's docs/agents.md and docs/decisions.md describe the fields). */

export type Verdict = 'ALLOW' | 'DENY' | 'REQUIRE_APPROVAL' | 'ESCALATE';
export type AgentStatus = 'ACTIVE' | 'STALE' | 'SUSPENDED';
export type PolicyPack = 'FREE_TIER_POLICIES' | 'RUNTIME_PAID_POLICIES';

export interface ClientOptions {
  /** The gateway's governance API, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** A personal access token with runtime:write (an operator's, or one bound to this agent). */
  token: string;
  /** This agent's id (what the proxy's x-svc-agent-id names). */
  agentId: string;
  /** Time allowed for one call, ms (default 10 s). */
  timeoutMs?: number;
  /** A fetch implementation (default: Node's global fetch). */
  fetch?: typeof fetch;
}

export interface RegisterOptions {
  name: string;
  policy_pack?: PolicyPack | null;
  risk_budget?: number | null;
  metadata?: Record<string, unknown>;
}

export interface Agent {
  agent_id: string;
  name: string;
  status: AgentStatus;
  last_seen: string | null;
  risk_score: number;
  policy_pack: PolicyPack | null;
  risk_budget: number | null;
}

export interface Heartbeat {
  agent_id: string;
  status: AgentStatus;
  last_seen: string;
  interval_s: number;
  next_due: string;
}

/** A tool call about to run: what `process()` asks the gateway to judge. */
export interface ToolCall {
  /** The tool's name or kind of action, e.g. "http.post" or "send_email". */
  type: string;
  /** What it acts on (a URL, an address, another agent's id). */
  target?: string;
  method?: string;
  /** The tool's arguments. */
  payload?: Record<string, unknown>;
  /** Groups calls for the session risk budget (bond_enforcement). */
  sessionId?: string;
  /** The session's risk budget, when the agent carries one. */
  riskBudget?: number;
}

/** The gateway's verdict on a tool call. */
export interface Decision {
  verdict: Verdict;
  /** True only for ALLOW: run the tool. */
  allowed: boolean;
  decisionId: string;
  /** The trace id of the decision (x-svc-trace-id), for the ledger and logs. */
  traceId: string;
  riskScore: number;
  /** The rule behind a verdict other than ALLOW ('' otherwise), e.g. a policy id or agent_suspended. */
  rule: string;
  /** The policy-set version that judged it (x-svc-policy). */
  policyVersion: string;
  latencyMs: number;
}
