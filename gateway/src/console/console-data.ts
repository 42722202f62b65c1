import type { DecisionRecord, DecisionStore } from '../decisions/decision-store.js';
import { isHeld, type Verdict } from '../policy/verdict.js';

export interface DecisionFilter {
  verdict: Verdict | '';
  agent: string;
  /** Epoch ms; decisions at or after it. */
  since: number;
  limit: number;
}

export interface AgentSummary {
  agent_id: string;
  /** active: a decision within the last hour; idle: older. (The agent store will say more.) */
  status: 'active' | 'idle';
  last_seen: string;
  decisions: number;
  blocked: number;
  /** Mean risk score of its decisions, 0-100. */
  risk: number;
  spend_brl: number;
}

export interface Overview {
  /** Bucket starts, Unix seconds, and per verdict the count in each bucket. */
  buckets: number[];
  byVerdict: Record<Verdict, number[]>;
  total: number;
  blockedRate: number;
  latencyP50: number;
  latencyP99: number;
  /** Per bucket (null where a bucket has no decision). */
  latencyP50Series: (number | null)[];
  latencyP99Series: (number | null)[];
  spendByAgent: { agent_id: string; spend_brl: number }[];
}

/**
 * What the console reads, kept behind one small interface so its pages do not depend on where the data lives. Today
 * it is derived from the decision store (verdicts, latency, cost and agent ids of the newest CONSOLE_SCAN_LIMIT
 * decisions); an agent registry with heartbeats can replace listAgents without touching a page.
 */
export interface ConsoleData {
  decisions(tenantId: string, filter: DecisionFilter): DecisionRecord[];
  decision(tenantId: string, id: string): DecisionRecord | undefined;
  listAgents(tenantId: string, now: number): AgentSummary[];
  overview(tenantId: string, fromMs: number, toMs: number, bucketCount: number): Overview;
}

const VERDICTS: readonly Verdict[] = ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'];
const ACTIVE_MS = 3_600_000;

export class DecisionConsoleData implements ConsoleData {
  constructor(
    private readonly store: DecisionStore,
    private readonly scanLimit: number,
  ) {}

  decisions(tenantId: string, f: DecisionFilter): DecisionRecord[] {
    const out: DecisionRecord[] = [];
    for (const d of this.store.recent(tenantId, this.scanLimit)) {
      if (Date.parse(d.created_at) < f.since) break;
      if (f.verdict && d.execution_status !== f.verdict) continue;
      if (f.agent && d.agent_id !== f.agent) continue;
      out.push(d);
      if (out.length >= f.limit) break;
    }
    return out;
  }

  decision(tenantId: string, id: string): DecisionRecord | undefined {
    return this.store.get(tenantId, id);
  }

  listAgents(tenantId: string, now: number): AgentSummary[] {
    const agents = new Map<string, AgentSummary & { riskSum: number }>();
    for (const d of this.store.recent(tenantId, this.scanLimit)) {
      let a = agents.get(d.agent_id);
      if (!a) {
        // Newest first: the first decision seen is the last one made.
        const seen = Date.parse(d.created_at);
        a = { agent_id: d.agent_id, status: now - seen < ACTIVE_MS ? 'active' : 'idle', last_seen: d.created_at, decisions: 0, blocked: 0, risk: 0, spend_brl: 0, riskSum: 0 };
        agents.set(d.agent_id, a);
      }
      a.decisions++;
      if (d.execution_status !== 'ALLOW') a.blocked++;
      a.riskSum += d.risk_score;
      a.spend_brl += d.cost_brl ?? 0;
    }
    return [...agents.values()].map(({ riskSum, ...a }) => ({ ...a, risk: Math.round((riskSum / a.decisions) * 10) / 10 }));
  }

  overview(tenantId: string, fromMs: number, toMs: number, bucketCount: number): Overview {
    const width = (toMs - fromMs) / bucketCount;
    const buckets = Array.from({ length: bucketCount }, (_, i) => Math.floor((fromMs + i * width) / 1000));
    const byVerdict = Object.fromEntries(VERDICTS.map((v) => [v, new Array<number>(bucketCount).fill(0)])) as Record<Verdict, number[]>;
    const latencies: number[] = [];
    const perBucket: number[][] = Array.from({ length: bucketCount }, () => []);
    const spend = new Map<string, number>();
    let total = 0;
    let blocked = 0;
    for (const d of this.store.recent(tenantId, this.scanLimit)) {
      const at = Date.parse(d.created_at);
      if (at < fromMs) break;
      if (at > toMs) continue;
      const i = Math.min(bucketCount - 1, Math.floor((at - fromMs) / width));
      (byVerdict[d.execution_status] as number[])[i]!++;
      total++;
      if (d.execution_status === 'DENY' || isHeld(d.execution_status)) blocked++;
      if (d.latency_ms !== undefined) {
        latencies.push(d.latency_ms);
        perBucket[i]!.push(d.latency_ms);
      }
      if (d.cost_brl) spend.set(d.agent_id, (spend.get(d.agent_id) ?? 0) + d.cost_brl);
    }
    for (const b of perBucket) b.sort((x, y) => x - y);
    return {
      buckets,
      byVerdict,
      total,
      blockedRate: total ? blocked / total : 0,
      latencyP50: percentile(latencies.sort((a, b) => a - b), 0.5) ?? 0,
      latencyP99: percentile(latencies, 0.99) ?? 0,
      latencyP50Series: perBucket.map((b) => percentile(b, 0.5)),
      latencyP99Series: perBucket.map((b) => percentile(b, 0.99)),
      spendByAgent: [...spend].map(([agent_id, spend_brl]) => ({ agent_id, spend_brl })).sort((a, b) => b.spend_brl - a.spend_brl),
    };
  }
}

/** Nearest-rank percentile of sorted values; null when there are none. */
function percentile(sorted: readonly number[], p: number): number | null {
  return sorted.length ? (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number) : null;
}
