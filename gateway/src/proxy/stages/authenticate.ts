import { newId } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { CompiledSets } from '../../policy/runtime/compiled-sets.js';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import type { Stage } from './stage.js';
import { CallerAdmission, SUSPENDED } from '../../governance/caller-admission.js';

/**
 * What the route's guard found (a bearer PAT with runtime:write within the tenant's plan, checked by the server from
 * the head, its refusal left here to be answered with the verdict headers); the agent the call acts as (resolved with
 * the principal: its x-svc-agent-id, else its token's bound agent, else SIDECAR_AGENT_ID; none is a 400), and that
 * agent in the registry (registered on first use; a suspended one is denied here with rule `agent_suspended`, recorded
 * like any block). Its policy set is the tenant's, or the tenant's plus its pack (docs/agents.md).
 */
export function authenticateStage(sets: CompiledSets, agents: AgentRegistry): Stage {
  const admission = new CallerAdmission(agents, sets);
  return {
    name: 'authenticate',
    run(c) {
      if (c.http.refusal !== null) throw c.http.refusal.thrown;
      const p = c.http.auth;
      c.principal = p;
      // A call refused before its agent is admitted is answered under the tenant's policy set.
      c.policySet = sets.policySet(p.tenantId);
      const admitted = admission.admit(p, c.http.agentId, Date.now());
      c.agent = admitted.agent;
      c.policySet = admitted.set;
      if (admitted.agent.suspended) {
        c.decisionId = newId('dec');
        c.verdict = SUSPENDED.verdict;
        c.rule = SUSPENDED.rule;
        c.outcome = 'blocked';
        throw new GatewayError('agent_suspended', `agent "${admitted.agentId}" is suspended by an administrator`, 'agent_suspended');
      }
    },
  };
}
