import { describe, expect, it } from 'vitest';
import { OPERATOR, proxyContext, tenantRuntimes } from '../../../test/helpers/proxy-context.js';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import { AgentState } from '../../agents/agent-state.js';
import type { AccessControl } from '../../identity/auth/authenticate.js';
import { routeCheck } from '../../http/route-guards.js';
import { GatewayError } from '../../errors.js';
import { authenticateStage } from './authenticate.js';
import { awaitAdmissionStage } from './await-admission.js';

// A plan limit counted elsewhere (Redis): the proxy route's guard (run as the server runs it) leaves the admission
// pending, and this stage waits for it.

function authenticated(admit: AccessControl['admit']) {
  const access: AccessControl = { authenticate: () => OPERATOR, admit };
  const agents = { admit: (tenantId: string, agentId: string) => new AgentState(tenantId, agentId) } as unknown as AgentRegistry;
  const c = proxyContext('chat', { principal: null });
  routeCheck('post /v1/proxy/chat/completions', { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', body: 'none' }, access, {}, null)?.(c.http);
  authenticateStage(tenantRuntimes([]).sets, agents).run(c);
  return c;
}

describe('await-admission stage', () => {
  it('has nothing to wait for when the plan limit was applied in process', () => {
    expect(awaitAdmissionStage().run(authenticated(() => undefined))).toBeUndefined();
  });

  it('waits for an admission decided elsewhere, and answers its refusal', async () => {
    let admitted!: () => void;
    const c = authenticated(() => new Promise<void>((resolve) => (admitted = resolve)));
    const waiting = awaitAdmissionStage().run(c);
    expect(waiting).toBe(c.http.admission);
    admitted();
    await expect(waiting).resolves.toBeUndefined();

    const refused = authenticated(() => Promise.reject(new GatewayError('rate_limited')));
    await expect(awaitAdmissionStage().run(refused)).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
  });
});
