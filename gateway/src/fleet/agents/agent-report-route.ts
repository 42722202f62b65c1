import type { HttpServer } from '../../http/server.js';
import type { TenantRepository } from '../../storage/repositories.js';
import { assertSidecarCovers, sidecarOf } from '../sidecar-auth.js';
import type { PgAgentActivity } from '../postgres/pg-agent-activity.js';
import { parseAgentReport } from './agent-report-format.js';

export interface AgentReportRouteOptions {
  activity: Pick<PgAgentActivity, 'merge'>;
  tenants: Pick<TenantRepository, 'get'>;
  /** Largest report body, bytes (413 past it). */
  maxBody: number;
  /** Most agents in one report (FLEET_AGENT_REPORT_MAX; 413 past it). */
  maxAgents: number;
}

/**
 * POST /v1/fleet/agents at the control plane (docs/fleet.md, "Agents and decisions"): a sidecar's report of the agents
 * it saw, merged per tenant (last_seen only moves forward; a registration made at the control plane wins over one
 * reported). Its token is checked by the `sidecar` guard before the body is read. The whole report is checked before
 * anything is merged: a tenant the token does not cover refuses it (403) with nothing written. Agents of a tenant the
 * control plane no longer has are skipped, and named in the answer.
 */
export function registerAgentReportRoute(server: HttpServer, options: AgentReportRouteOptions): void {
  server.route('post', '/v1/fleet/agents', { auth: 'sidecar', body: 'json', maxBody: options.maxBody }, async (ctx) => {
    const sidecar = sidecarOf(ctx);
    const report = parseAgentReport(ctx.body, options.maxAgents);
    for (const t of report.tenants) assertSidecarCovers(sidecar, t.tenant_id);
    let merged = 0;
    const skipped: string[] = [];
    for (const t of report.tenants) {
      if (!options.tenants.get(t.tenant_id)) {
        skipped.push(t.tenant_id);
        continue;
      }
      if (t.agents.length === 0) continue;
      await options.activity.merge(t.tenant_id, t.agents);
      merged += t.agents.length;
    }
    return { status: 200, body: { merged, skipped_tenants: skipped } };
  });
}
