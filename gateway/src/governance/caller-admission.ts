import { GatewayError } from '../errors.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { AgentState } from '../agents/agent-state.js';
import { assertAgent, type Principal } from '../identity/auth/principal.js';
import { isValidLedgerName } from '../ledger/index.js';
import type { PolicySet } from '../policy/compile-policy-set.js';
import type { Evaluation, Triggered } from '../policy/evaluation.js';
import type { CompiledSets } from '../policy/runtime/compiled-sets.js';

/** Who a governed call acts as, and the policies that judge it: what every door admits first. */
export interface AdmittedCaller {
  readonly tenantId: string;
  readonly agentId: string;
  /** The agent in the registry (registered on first use). A suspended one is refused by its door, with SUSPENDED. */
  readonly agent: AgentState;
  /** The tenant's compiled set, or the tenant's plus the agent's pack (docs/agents.md). */
  readonly set: PolicySet;
}

/**
 * The one admission of a governed call, the same on every door (the proxy, MCP, /v1/decide): an agent id is required
 * and must be a ledger name, a token bound to an agent may act only as that agent, and the agent is admitted to the
 * registry (its last contact noted) with its policy set chosen by its pack.
 */
export class CallerAdmission {
  constructor(
    private readonly agents: AgentRegistry,
    private readonly sets: CompiledSets,
  ) {}

  admit(principal: Principal, agentId: string, now: number): AdmittedCaller {
    if (agentId === '') throw new GatewayError('missing_agent_id');
    // It becomes part of a ledger key: refuse what the ledger would refuse after the answer (an unaudited call).
    if (!isValidLedgerName(agentId)) throw new GatewayError('invalid_request', 'x-svc-agent-id: no control characters, at most 256 bytes');
    assertAgent(principal, agentId);
    const agent = this.agents.admit(principal.tenantId, agentId, now);
    return { tenantId: principal.tenantId, agentId, agent, set: this.sets.agentSet(principal.tenantId, agent.policyPack) };
  }
}

const NO_TRIGGERS: Triggered[] = [];

/** A suspended agent's judgement on every door: DENY with rule agent_suspended and no risk (nothing was judged). */
export const SUSPENDED: Evaluation = Object.freeze({ verdict: 'DENY', riskScore: 0, rule: 'agent_suspended', policiesEvaluated: 0, triggered: NO_TRIGGERS, redactInput: false });
