import type { Dispatcher } from 'undici';
import type { Logger } from '@aduana/shared';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import { ControlPlaneLoop, type ControlPlaneLoopStatus } from './control-plane-loop.js';
import { AGENT_REPORT_FORMAT, type AgentReport, type ReportedAgent } from '../agents/agent-report-format.js';

export interface AgentReporterOptions {
  agents: Pick<AgentRegistry, 'all'>;
  controlPlaneUrl: string;
  sidecarToken: string;
  /** The egress proxy's dispatcher, when one is set (default: straight to the control plane). */
  dispatcher?: Dispatcher | undefined;
  /** How often it reports (FLEET_AGENT_REPORT_MS). */
  intervalMs: number;
  /** Most agents in one request (FLEET_AGENT_REPORT_MAX): more are sent in several. */
  batchMax: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  timeoutMs: number;
  logger: Logger;
}

export interface AgentReporterStatus extends ControlPlaneLoopStatus {
  /** Agents reported since start. */
  reported: number;
}

/**
 * Tells the control plane which agents this sidecar saw (docs/fleet.md, "Agents and decisions"): every
 * FLEET_AGENT_REPORT_MS it walks its agents (memory only, nothing on the request path) and sends those seen, heartbeated
 * or changed since the last acknowledged report, batched by FLEET_AGENT_REPORT_MAX. A failed report is retried with
 * capped backoff and loses nothing: the agents stay "since the last acknowledged report" until one is acknowledged
 * (after a restart, every agent is reported once; the control plane's merge only moves times forward).
 */
export class AgentReporter {
  #acked = 0;
  #reported = 0;
  readonly #loop: ControlPlaneLoop;

  constructor(private readonly o: AgentReporterOptions) {
    this.#loop = new ControlPlaneLoop({ ...o, what: 'agent report', path: '/v1/fleet/agents' }, () => this.reportOnce());
  }

  get status(): Readonly<AgentReporterStatus> {
    return { ...this.#loop.status, reported: this.#reported };
  }

  start(): void {
    this.#loop.start();
  }

  /** Sends one report of everything seen since the last acknowledged one; resolves to the agents sent. */
  async reportOnce(): Promise<number> {
    // One ms back: an agent seen in the very ms this report starts may be read before or after; it goes again.
    const startedAt = Date.now() - 1;
    const since = this.#acked;
    const byTenant = new Map<string, ReportedAgent[]>();
    for (const s of this.o.agents.all()) {
      if (s.lastSeen <= since && s.updatedAt <= since && s.heartbeatBase <= since) continue;
      let list = byTenant.get(s.tenantId);
      if (!list) byTenant.set(s.tenantId, (list = []));
      list.push({
        agent_id: s.agentId,
        name: s.name,
        policy_pack: s.policyPack,
        risk_budget: s.riskBudget,
        metadata: s.metadata,
        created_at: s.createdAt,
        last_seen: s.lastSeen,
        heartbeat_base: s.heartbeatBase,
        reported_status: s.reportedStatus,
        risk_score: Math.min(100, Math.max(0, s.riskScore)),
      });
    }
    let sent = 0;
    for (const report of batches(byTenant, this.o.batchMax)) {
      const { status, text } = await this.#loop.post(JSON.stringify(report));
      if (status !== 200) throw this.#loop.refused(status, text);
      for (const t of report.tenants) sent += t.agents.length;
    }
    this.#acked = startedAt;
    this.#reported += sent;
    return sent;
  }

  close(): Promise<void> {
    return this.#loop.close();
  }
}

/** The report cut into requests of at most `max` agents, tenants kept whole where they fit. */
function* batches(byTenant: Map<string, ReportedAgent[]>, max: number): Generator<AgentReport> {
  let tenants: AgentReport['tenants'] = [];
  let n = 0;
  for (const [tenant_id, agents] of byTenant) {
    for (let i = 0; i < agents.length; i += max) {
      const part = agents.slice(i, i + max);
      if (n + part.length > max && n > 0) {
        yield { format: AGENT_REPORT_FORMAT, tenants };
        tenants = [];
        n = 0;
      }
      tenants.push({ tenant_id, agents: part });
      n += part.length;
    }
  }
  if (n > 0) yield { format: AGENT_REPORT_FORMAT, tenants };
}
