import { GatewayError } from '../../errors.js';
import { authorize, type AccessControl } from '../../auth/authenticate.js';
import type { TenantRuntimes } from '../../runtime/tenant-runtime.js';
import { assertAgent } from '../../auth/principal.js';
import type { RequestStage } from './stage.js';
import { isValidLedgerName } from '../../ledger/index.js';

/** Bearer PAT → principal with runtime:write; the tenant's plan limit; the agent id every proxied call must name. */
export function authenticateStage(access: AccessControl, runtimes: TenantRuntimes): RequestStage {
  return {
    name: 'authenticate',
    run(c) {
      const p = authorize(access, c.http, 'runtime:write');
      c.principal = p;
      c.policySet = runtimes.policySet(p.tenantId);
      if (c.http.agentId === '') throw new GatewayError('missing_agent_id');
      // It becomes part of a ledger key: refuse what the ledger would refuse after the answer (an unaudited call).
      if (!isValidLedgerName(c.http.agentId)) throw new GatewayError('invalid_request', 'x-svc-agent-id: no control characters, at most 256 bytes');
      assertAgent(p, c.http.agentId);
    },
  };
}
