import type { DecisionRecord, DecisionStore } from '../../governance/decisions/decision-store.js';
import { isHeld, type Verdict } from '../../policy/verdict.js';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import type { AgentStatus } from '../../agents/agent-state.js';
import type { MaybePromise } from '../../agents/agent-directory.js';
import { pageDecisions, type DecisionFilter, type DecisionListPage } from './decision-list.js';

export type { DecisionFilter, DecisionListPage } from './decision-list.js';

export interface AgentSummary {
  agent_id: string;
  name: string;
  /** The registry's status: ACTIVE, STALE (missed heartbeats) or SUSPENDED (docs/agents.md). */
  status: AgentStatus;
  /** ISO time of its last request or heartbeat; '' when never seen. */
  last_seen: string;
  policy_pack: string;
  /** Among the tenant's recent decisions (CONSOLE_SCAN_LIMIT). */
  decisions: number;
  blocked: number;
  /** The registry's risk_score: a decayed mean of its decisions' risk, 0-100. */
  risk: number;
  spend_brl: number;
}

export interface Overview {
  /** Bucket starts, Unix seconds, and per verdict the count in each bucket. */
  buckets: number[];
  byVerdict: Record<Verdict, number[]>;
  total: number;
  /** Held decisions (REQUIRE_APPROVAL, ESCALATE) of the range still awaiting a resolution; resolved ones are not held. */
  held: number;
  blockedRate: number;
  latencyP50: number;
  latencyP99: number;
  /** Per bucket (null where a bucket has no decision). */
  latencyP50Series: (number | null)[];
  latencyP99Series: (number | null)[];
  spendByAgent: { agent_id: string; spend_brl: number }[];
  /** False when the newest CONSOLE_SCAN_LIMIT decisions did not reach back to the range's start: the figures are theirs. */
  complete: boolean;
  scanLimit: number;
}

/** Tokens and cost of a group of proxied calls; unpriced calls (a model no price table lists) are counted apart. */
export interface CostRow {
  key: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Priced calls only. */
  cost_brl: number;
  unpriced_calls: number;
  unpriced_prompt_tokens: number;
  unpriced_completion_tokens: number;
}

export interface Costs {
  total: CostRow;
  byModel: CostRow[];
  byAgent: CostRow[];
  /** UTC days, oldest first; only days with calls. */
  byDay: CostRow[];
  /** Decisions read; `complete` false when the scan limit was reached before the range's start. */
  scanned: number;
  complete: boolean;
}

/**
 * What the console reads, kept behind one small interface so its pages do not depend on where the data lives: the
 * agent registry for agents (status, last seen, risk), the decision store for the rest (verdicts, latency, cost and
 * agent ids of the newest CONSOLE_SCAN_LIMIT decisions).
 */
export interface ConsoleData {
  /** A page of the decisions list (decision-list.ts). */
  decisions(tenantId: string, filter: DecisionFilter): MaybePromise<DecisionListPage>;
  decision(tenantId: string, id: string): MaybePromise<DecisionRecord | undefined>;
  listAgents(tenantId: string, now: number): MaybePromise<AgentSummary[]>;
  overview(tenantId: string, fromMs: number, toMs: number, bucketCount: number): MaybePromise<Overview>;
  costs(tenantId: string, fromMs: number, toMs: number): MaybePromise<Costs>;
}

const emptyRow = (key: string): CostRow => ({ key, calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_brl: 0, unpriced_calls: 0, unpriced_prompt_tokens: 0, unpriced_completion_tokens: 0 });

function addTo(rows: Map<string, CostRow>, key: string, d: DecisionRecord): void {
  let r = rows.get(key);
  if (!r) rows.set(key, (r = emptyRow(key)));
  addCall(r, d);
}

function addCall(r: CostRow, d: DecisionRecord): void {
  const input = d.prompt_tokens ?? 0;
  const output = d.completion_tokens ?? 0;
  r.calls++;
  r.prompt_tokens += input;
  r.completion_tokens += output;
  if (d.unpriced) {
    r.unpriced_calls++;
    r.unpriced_prompt_tokens += input;
    r.unpriced_completion_tokens += output;
  } else r.cost_brl += d.cost_brl ?? 0;
}

/** Most expensive first, then most tokens (unpriced models cost 0), then by name. */
const byCost = (a: CostRow, b: CostRow): number => b.cost_brl - a.cost_brl || b.prompt_tokens + b.completion_tokens - (a.prompt_tokens + a.completion_tokens) || (a.key < b.key ? -1 : 1);

const VERDICTS: readonly Verdict[] = ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'];
/** Agents shown on the console's page (the API pages through all of them). */
const AGENTS_SHOWN = 500;

/** What DecisionConsoleData reads, synchronously: the embedded stores, or a snapshot read from the control plane's. */
export interface ConsoleSources {
  store: Pick<DecisionStore, 'recent' | 'get'>;
  agents: Pick<AgentRegistry, 'intervalMs' | 'list'>;
}

export class DecisionConsoleData implements ConsoleData {
  constructor(
    private readonly store: ConsoleSources['store'],
    private readonly agents: ConsoleSources['agents'],
    private readonly scanLimit: number,
  ) {}

  decisions(tenantId: string, f: DecisionFilter): DecisionListPage {
    // Unfiltered, a page reads its rows and one more: reading (and decoding) the whole scan window for them was most
    // of the list's time with 100,000 stored (bench:console).
    return pageDecisions(
      (limit, below) => this.store.recent(tenantId, limit, below),
      (id) => this.store.get(tenantId, id),
      f,
      this.scanLimit,
    );
  }

  decision(tenantId: string, id: string): DecisionRecord | undefined {
    return this.store.get(tenantId, id);
  }

  listAgents(tenantId: string, now: number): AgentSummary[] {
    const activity = new Map<string, { decisions: number; blocked: number; spend: number }>();
    for (const d of this.store.recent(tenantId, this.scanLimit)) {
      let a = activity.get(d.agent_id);
      if (!a) activity.set(d.agent_id, (a = { decisions: 0, blocked: 0, spend: 0 }));
      a.decisions++;
      if (d.execution_status !== 'ALLOW') a.blocked++;
      a.spend += d.cost_brl ?? 0;
    }
    const interval = this.agents.intervalMs;
    return this.agents.list(tenantId, { limit: AGENTS_SHOWN }).data.map((s) => {
      const a = activity.get(s.agentId);
      return {
        agent_id: s.agentId,
        name: s.name,
        status: s.status(now, interval),
        last_seen: s.lastSeen ? new Date(s.lastSeen).toISOString() : '',
        policy_pack: s.policyPack ?? '',
        decisions: a?.decisions ?? 0,
        blocked: a?.blocked ?? 0,
        risk: Math.round(s.riskScore * 10) / 10,
        spend_brl: a?.spend ?? 0,
      };
    });
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
    let held = 0;
    let scanned = 0;
    let reachedStart = false;
    for (const d of this.store.recent(tenantId, this.scanLimit)) {
      scanned++;
      const at = Date.parse(d.created_at);
      if (at < fromMs) {
        reachedStart = true;
        break;
      }
      if (at > toMs) continue;
      const i = Math.min(bucketCount - 1, Math.floor((at - fromMs) / width));
      (byVerdict[d.execution_status] as number[])[i]!++;
      total++;
      if (d.execution_status === 'DENY' || isHeld(d.execution_status)) blocked++;
      if (isHeld(d.execution_status) && !d.resolution) held++;
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
      held,
      blockedRate: total ? blocked / total : 0,
      latencyP50: percentile(latencies.sort((a, b) => a - b), 0.5) ?? 0,
      latencyP99: percentile(latencies, 0.99) ?? 0,
      latencyP50Series: perBucket.map((b) => percentile(b, 0.5)),
      latencyP99Series: perBucket.map((b) => percentile(b, 0.99)),
      spendByAgent: [...spend].map(([agent_id, spend_brl]) => ({ agent_id, spend_brl })).sort((a, b) => b.spend_brl - a.spend_brl),
      complete: reachedStart || scanned < this.scanLimit,
      scanLimit: this.scanLimit,
    };
  }

  costs(tenantId: string, fromMs: number, toMs: number): Costs {
    return sumCosts(this.store.recent(tenantId, this.scanLimit), fromMs, toMs, this.scanLimit);
  }
}

/** One pass over the newest decisions, proxied calls only (those with usage or a cost): totals by model, agent, UTC day. */
function sumCosts(recent: Iterable<DecisionRecord>, fromMs: number, toMs: number, scanLimit: number): Costs {
  const total = emptyRow('total');
  const byModel = new Map<string, CostRow>();
  const byAgent = new Map<string, CostRow>();
  const byDay = new Map<string, CostRow>();
  let scanned = 0;
  let complete = true;
  for (const d of recent) {
    scanned++;
    const at = Date.parse(d.created_at);
    if (at < fromMs) break;
    if (scanned >= scanLimit) complete = false;
    if (at >= toMs) continue;
    if (d.model === undefined && !d.cost_brl) continue;
    addCall(total, d);
    // Records written before the model was kept in the index.
    addTo(byModel, d.model ?? '(not recorded)', d);
    addTo(byAgent, d.agent_id, d);
    addTo(byDay, d.created_at.slice(0, 10), d);
  }
  return {
    total,
    byModel: [...byModel.values()].sort(byCost),
    byAgent: [...byAgent.values()].sort(byCost),
    byDay: [...byDay.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
    scanned,
    complete,
  };
}

/** Nearest-rank percentile of sorted values; null when there are none. */
function percentile(sorted: readonly number[], p: number): number | null {
  return sorted.length ? (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number) : null;
}
