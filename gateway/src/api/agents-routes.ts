import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import type { RequestContext } from '../http/request-context.js';
import { assertOwnTenant, cursorParam, limitParam } from '../http/list-params.js';
import { assertAgent, hasScope } from '../identity/auth/principal.js';
import { agentView } from '../agents/agent-state.js';
import { assertAgentId, parseHeartbeat, parseRegister, parseUpsert, statusParam, type ProfileRequest } from '../agents/agent-requests.js';
import type { GatewayConfig } from '../config.js';
import type { AgentDirectory } from '../agents/agent-directory.js';
import { actorOf, type RecordAdminAction } from '../governance/admin-actions.js';

export interface AgentRouteDeps {
  agents: AgentDirectory;
  config: Pick<GatewayConfig, 'listDefaultLimit' | 'listMaxLimit'>;
  onAdminAction: RecordAdminAction;
}

/** The path's agent id, URL-decoded and checked (400 when it cannot be an agent id). */
function pathAgentId(ctx: RequestContext): string {
  let id: string;
  try {
    id = decodeURIComponent(ctx.params[0] as string);
  } catch {
    throw new GatewayError('invalid_request', 'agent_id: not valid URL encoding');
  }
  assertAgentId(id);
  return id;
}

/**
 * Agents and heartbeats (docs/agents.md): register, register-or-update, list, read, heartbeat, and the admin's
 * suspend and resume. The routes only translate HTTP: behind them is the embedded registry (plain in-process
 * functions) or, at the control plane, PostgreSQL.
 */
export function registerAgentRoutes(server: HttpServer, deps: AgentRouteDeps): void {
  const { agents, config } = deps;
  const interval = agents.intervalMs;

  async function upsert(ctx: RequestContext, req: ProfileRequest) {
    assertOwnTenant(ctx, req.tenantId);
    assertAgent(ctx.auth, req.agentId);
    const { agent, created } = await agents.upsert(ctx.auth.tenantId, req.agentId, req.profile, (changesGovernance) => {
      // An agent's pack and risk budget govern it: once set, only an admin changes them.
      if (changesGovernance && !hasScope(ctx.auth, 'admin:manage')) throw new GatewayError('missing_scope', "changing a registered agent's policy_pack or risk_budget needs admin:manage");
    });
    return { status: created ? 201 : 200, body: { ...agentView(agent, Date.now(), interval), created } };
  }

  server.route('post', '/v1/agents/register', { auth: 'pat', scope: 'runtime:write', body: 'json' }, (ctx) => upsert(ctx, parseRegister(ctx.body)));
  server.route('post', '/v1/agents', { auth: 'pat', scope: 'runtime:write', body: 'json' }, (ctx) => upsert(ctx, parseUpsert(ctx.body)));

  server.route('get', '/v1/agents', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    const page = await agents.list(ctx.auth.tenantId, { status: statusParam(ctx.query.get('status')), limit, cursor: cursorParam(ctx) });
    const now = Date.now();
    return { status: 200, body: { data: page.data.map((a) => agentView(a, now, interval)), cursor: page.cursor, total: page.total } };
  });

  server.route('get', '/v1/agents/:agent_id', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    const agent = await agents.get(ctx.auth.tenantId, pathAgentId(ctx));
    if (!agent) throw new GatewayError('not_found', 'agent not found');
    return { status: 200, body: agentView(agent, Date.now(), interval) };
  });

  for (const [action, suspended] of [['suspend', true], ['resume', false]] as const) {
    server.route('post', `/v1/agents/:agent_id/${action}`, { auth: 'pat', scope: 'admin:manage', body: 'none' }, async (ctx) => {
      const agentId = pathAgentId(ctx);
      // The state read before the change (the registry changes its record in place).
      const was = (await agents.get(ctx.auth.tenantId, agentId))?.suspended;
      const agent = await agents.setSuspended(ctx.auth.tenantId, agentId, suspended);
      if (!agent) throw new GatewayError('not_found', 'agent not found');
      const state = (s: boolean) => ({ agent_id: agentId, suspended: s });
      await deps.onAdminAction(
        ctx.auth.tenantId,
        { actor: actorOf(ctx.auth), action: suspended ? 'agent.suspended' : 'agent.resumed', target: agentId, before: was === undefined ? null : state(was), after: state(suspended) },
        ctx.trace.traceId,
      );
      return { status: 200, body: agentView(agent, Date.now(), interval) };
    });
  }

  server.route('post', '/v1/heartbeat', { auth: 'pat', scope: 'runtime:write', body: 'json', agentsCall: 'main-thread' }, async (ctx) => {
    const hb = parseHeartbeat(ctx.body);
    assertOwnTenant(ctx, hb.tenantId);
    assertAgent(ctx.auth, hb.agentId);
    const reported: { status?: string; metadata?: Record<string, unknown> } = {};
    if (hb.status !== undefined) reported.status = hb.status;
    if (hb.metadata !== undefined) reported.metadata = hb.metadata;
    const agent = await agents.heartbeat(ctx.auth.tenantId, hb.agentId, reported);
    const now = Date.now();
    return { status: 200, body: { agent_id: agent.agentId, status: agent.status(now, interval), last_seen: new Date(agent.lastSeen).toISOString(), interval_s: interval / 1000, next_due: new Date(agent.heartbeatBase + interval).toISOString() } };
  });
}
