import { newId } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { TenantRuntimes } from '../../policy/runtime/tenant-runtime.js';
import { assertAgent } from '../../identity/auth/principal.js';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import type { Stage } from './stage.js';
import { isValidLedgerName } from '../../ledger/index.js';

/**
 * What the route's guard found (a bearer PAT with runtime:write within the tenant's plan, checked by the server from
 * the head, its refusal left here to be answered with the verdict headers); the agent the call acts as (resolved with
 * the principal: its x-svc-agent-id, else its token's bound agent, else SIDECAR_AGENT_ID; none is a 400), and that
 * agent in the registry (registered on first use; a suspended one is denied here with rule `agent_suspended`, recorded
 * like any block). Its policy set is the tenant's, or the tenant's plus its pack (docs/agents.md).
 */
export function authenticateStage(runtimes: TenantRuntimes, agents: AgentRegistry): Stage {
  return {
    name: 'authenticate',
    run(c) {
      if (c.http.refusal !== null) throw c.http.refusal.thrown;
      const p = c.http.auth;
      c.principal = p;
      if (c.http.agentId === '') {
        c.policySet = runtimes.policySet(p.tenantId);
        throw new GatewayError('missing_agent_id');
      }
      // It becomes part of a ledger key: refuse what the ledger would refuse after the answer (an unaudited call).
      if (!isValidLedgerName(c.http.agentId)) {
        c.policySet = runtimes.policySet(p.tenantId);
        throw new GatewayError('invalid_request', 'x-svc-agent-id: no control characters, at most 256 bytes');
      }
      assertAgent(p, c.http.agentId);
      const agent = agents.admit(p.tenantId, c.http.agentId, Date.now());
      c.agent = agent;
      c.policySet = runtimes.agentSet(p.tenantId, agent.policyPack);
      if (agent.suspended) {
        c.decisionId = newId('dec');
        c.verdict = 'DENY';
        c.rule = 'agent_suspended';
        c.outcome = 'blocked';
        throw new GatewayError('agent_suspended', `agent "${agent.agentId}" is suspended by an administrator`, 'agent_suspended');
      }
    },
  };
}
