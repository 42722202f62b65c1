import { request } from 'undici';
import type { Logger } from '@aduana/shared';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import { shipBackoffMs } from '../shipping/ship-backoff.js';
import { AGENT_REPORT_FORMAT, type AgentReport, type ReportedAgent } from '../agents/agent-report-format.js';

export interface AgentReporterOptions {
  agents: Pick<AgentRegistry, 'all'>;
  controlPlaneUrl: string;
  sidecarToken: string;
  /** How often it reports (FLEET_AGENT_REPORT_MS). */
  intervalMs: number;
  /** Most agents in one request (FLEET_AGENT_REPORT_MAX): more are sent in several. */
  batchMax: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  timeoutMs: number;
  logger: Logger;
}

export interface AgentReporterStatus {
  last_success: string | null;
  last_error: string | null;
  /** Consecutive failed reports (0 once one succeeds). */
  failures: number;
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
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #closed = false;
  readonly #abort = new AbortController();
  readonly #endpoint: string;
  readonly #status: AgentReporterStatus = { last_success: null, last_error: null, failures: 0, reported: 0 };

  constructor(private readonly o: AgentReporterOptions) {
    this.#endpoint = new URL('/v1/fleet/agents', o.controlPlaneUrl).toString();
  }

  get status(): Readonly<AgentReporterStatus> {
    return this.#status;
  }

  start(): void {
    this.#schedule(this.o.intervalMs);
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
      await this.#post(JSON.stringify(report));
      for (const t of report.tenants) sent += t.agents.length;
    }
    this.#acked = startedAt;
    this.#status.reported += sent;
    return sent;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#running?.catch(() => {});
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#run();
    }, delayMs);
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    try {
      await this.reportOnce();
      this.#status.failures = 0;
      this.#status.last_success = new Date().toISOString();
      this.#schedule(this.o.intervalMs);
    } catch (err) {
      if (this.#closed) return;
      this.#status.failures++;
      this.#status.last_error = err instanceof Error ? err.message : String(err);
      this.o.logger.warn({ err }, 'agent report to the control plane failed; retrying');
      this.#schedule(Math.max(shipBackoffMs(this.#status.failures, this.o.backoffBaseMs, this.o.backoffMaxMs), Math.min(this.o.intervalMs, this.o.backoffBaseMs)));
    }
  }

  async #post(body: string): Promise<void> {
    const res = await request(this.#endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.o.sidecarToken}`, 'content-type': 'application/json' },
      body,
      headersTimeout: this.o.timeoutMs,
      bodyTimeout: this.o.timeoutMs,
      signal: this.#abort.signal,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`control plane answered ${res.statusCode} to an agent report: ${text.slice(0, 300)}`);
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
