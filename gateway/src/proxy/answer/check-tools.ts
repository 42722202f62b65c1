import { GatewayError } from '../../errors.js';
import type { Triggered } from '../../policy/evaluation.js';
import type { ProxyContext } from '../proxy-context.js';
import { applyOutputVerdict } from './check-output.js';
import type { ResponseStage } from './response-stage.js';

/**
 * Tool calls an answer names, judged by the tenant's `tool_access` policies (as tools of no MCP server): a denied one
 * refuses the answer as an output filter does, so the call never reaches the agent; a whole answer is a 403, a stream
 * is cut at the event that opens the call. A tenant with no such policy, and no scoped one, costs two booleans per piece.
 */
export function checkToolsStage(): ResponseStage {
  return {
    name: 'check-tools',
    onPiece(c, piece) {
      const set = c.policySet;
      if (set === null || (!set.hasToolAccess && !set.aimed)) return;
      let triggered: Triggered[] | null = null;
      for (const name of c.endpoint.format.toolNames(piece.body)) {
        // A scope by tool reads the name of the tool called.
        const judge = set.aimed ? set.narrow('proxy', c.http.agentId, c.model, undefined, name, c.deployment) : set;
        const t = judge.toolVerdict(name, '');
        // One trigger per policy: two calls refused by the same policy do not count its risk twice.
        if (t !== null && !triggered?.some((x) => x.policyId === t.policyId)) (triggered ??= []).push(t);
      }
      if (triggered !== null) refuse(c, triggered);
    },
  };
}

/** Folds the triggers into the call's verdict, rule and risk as output checks do, then refuses the answer. */
function refuse(c: ProxyContext, triggered: Triggered[]): never {
  // With what the output checks before it found: the call's record keeps every trigger, its risk combines them all.
  applyOutputVerdict(c, [...c.outputTriggered, ...triggered]);
  c.outcome = 'blocked';
  const why = triggered.find((t) => t.policyId === c.rule)?.reason ?? 'policy violation';
  throw new GatewayError('policy_violation', `answer blocked by policy: ${why}`, c.rule);
}
