import type { Egress, Logger } from '@aduana/shared';
import type { GatewayConfig } from '../config.js';
import type { HttpServer } from '../http/server.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { AuditTrail } from '../governance/audit-trail.js';
import type { DecisionStore } from '../governance/decisions/decision-store.js';
import type { TenantRuntimes } from '../policy/runtime/tenant-runtime.js';
import type { RequestLog } from '../request-log/request-log.js';
import type { GatewayStore } from '../storage/gateway-store.js';
import { HeldToolCalls } from '../mcp/held-tool-calls.js';
import { McpGateway } from '../mcp/mcp-gateway.js';
import { McpOriginCheck } from '../mcp/mcp-origin-check.js';
import { ToolCallRecorder } from '../mcp/mcp-record.js';
import { parseMcpSessionShares } from '../mcp/mcp-session-shares.js';
import { McpSessions } from '../mcp/mcp-sessions.js';
import { parseMcpUpstreams } from '../mcp/mcp-upstreams.js';
import { ToolCallJudge } from '../mcp/tool-call-judge.js';
import { registerMcpRoutes } from './mcp-routes.js';

/** What the MCP gateway takes from the rest of the gateway. */
export interface McpParts {
  readonly store: Pick<GatewayStore, 'heldToolCalls' | 'mcpSessions'>;
  readonly runtimes: TenantRuntimes;
  readonly agents: AgentRegistry;
  readonly audit: AuditTrail;
  readonly decisions: DecisionStore;
  /** The request log's sampler; null: no key, nothing is drawn. */
  readonly requestLog: RequestLog | null;
  readonly egress: Egress;
  readonly logger: Logger;
}

/**
 * The MCP gateway and its routes on a server, when MCP_UPSTREAMS names servers; null (and no route) otherwise: a
 * sidecar without servers pays nothing for it. Its tool calls are sampled like proxied calls (docs/console.md,
 * "Request log"), and each tenant's share of the session table is its plan's, read when it opens a session.
 */
export function mountMcp(server: HttpServer, config: GatewayConfig, parts: McpParts): McpGateway | null {
  const upstreams = parseMcpUpstreams(config.mcpUpstreams);
  if (upstreams.size === 0) return null;
  const shares = parseMcpSessionShares(config.mcpSessionsMax);
  const { runtimes, store } = parts;
  const recorder = new ToolCallRecorder(parts.audit, parts.requestLog);
  const mcp = new McpGateway({
    upstreams,
    runtimes,
    agents: parts.agents,
    judge: new ToolCallJudge(runtimes.limits, recorder, parts.decisions, new HeldToolCalls(store.heldToolCalls)),
    recorder,
    sessions: new McpSessions(store.mcpSessions, (tenantId) => shares[runtimes.admission.plan(tenantId)]),
    origins: McpOriginCheck.fromSettings(config.host, config.mcpAllowedOrigins),
    logger: parts.logger,
    readBody: (ctx, maxBytes) => server.readBody(ctx, maxBytes),
    complete: (ctx, status) => server.complete(ctx, status),
    maxBodyBytes: config.proxyBodyLimit,
    maxAnswerBytes: config.mcpAnswerLimit,
    timeoutMs: config.upstreamTimeoutMs,
    streamIdleMs: config.mcpStreamIdleS * 1000,
    egress: parts.egress,
  });
  registerMcpRoutes(server, mcp);
  return mcp;
}
