import { performance } from 'node:perf_hooks';
import type { Database } from 'lmdb';
import { EvaluationTime } from './evaluation-time.js';
import type { Evaluation, EvaluationInput } from '../evaluation.js';
import { TENANT_SPEND, type InputFindings, type PolicySet } from '../compile-policy-set.js';
import { PolicyStateTables, TenantState, createPolicyStateMemory, periodKey, type PolicyStateMemory } from '../tenant-state.js';
import type { SharedLimits } from '../../fleet/limits/shared-limits.js';

/** Evaluation time a tenant may use at once, and earns back per second, ms. */
export interface EvaluationBudget {
  evalBurstMs: number;
  evalPerSecondMs: number;
}

/**
 * What judging counts per tenant: the policy state (rate windows, session risk, spend), the evaluation-time budget
 * every evaluation is admitted by and charged to, and the spend totals written to LMDB.
 */
export class TenantLimits {
  readonly #evalTime: EvaluationTime;
  readonly #dirtySpend = new Set<string>();
  #spendTimer: NodeJS.Timeout | null = null;
  /** Views of the shared policy state, one per tenant served (cheap: the records are in `#tables`). */
  readonly #states = new Map<string, TenantState>();
  readonly #tables: PolicyStateTables;
  /** With REDIS_URL: `rate_limit` windows and spend counted tenant-wide (docs/fleet.md, "Shared limits"); null = this process alone. */
  #shared: SharedLimits | null = null;

  constructor(
    private readonly counters: Database,
    budget: EvaluationBudget,
    now: () => number = Date.now,
    memory: PolicyStateMemory = createPolicyStateMemory(),
  ) {
    this.#tables = new PolicyStateTables(memory);
    this.#evalTime = new EvaluationTime(budget.evalBurstMs, budget.evalPerSecondMs, now);
  }

  /**
   * Evaluates an input with the tenant's set and state, within the tenant's evaluation-time budget: refused (429)
   * while the budget is spent, charged with the time it took. Synchronous, except with shared limits for a set with
   * `rate_limit` policies: the request's hits are then counted on Redis first, one round trip (docs/fleet.md,
   * "Shared limits"), or at once by this process alone while Redis is away.
   */
  judge(set: PolicySet, input: EvaluationInput, findings?: InputFindings): Evaluation | Promise<Evaluation> {
    if (this.#shared !== null && set.rateWindows.length > 0 && !input.scoreOnly) return this.#judgeShared(this.#shared, set, input, findings);
    return this.#judge(set, input, findings, undefined);
  }

  #judge(set: PolicySet, input: EvaluationInput, findings: InputFindings | undefined, sharedRates: readonly number[] | undefined): Evaluation {
    // With findings, the scan was done by the worker, admitted (and charged) before it started.
    if (!findings) this.#evalTime.admit(set.tenantId);
    const started = performance.now();
    try {
      return set.evaluate(input, this.state(set.tenantId), findings, sharedRates);
    } finally {
      this.#evalTime.charge(set.tenantId, performance.now() - started);
    }
  }

  #judgeShared(shared: SharedLimits, set: PolicySet, input: EvaluationInput, findings: InputFindings | undefined): Evaluation | Promise<Evaluation> {
    // What the evaluator refuses before counting a window (evaluation time spent, text past the cap) counts nothing
    // on Redis either.
    if (!findings) this.#evalTime.admit(set.tenantId);
    if (set.readsInputText && input.text.length > set.maxTextChars) return this.#judge(set, input, findings, undefined);
    const windows = set.rateWindows.map((w) => ({ key: w.perAgent ? `${w.policyId}:${input.agentId}` : w.policyId, windowMs: w.windowMs }));
    const counted = shared.countWindows(set.tenantId, windows);
    if (counted === null) return this.#judge(set, input, findings, undefined);
    return counted.then((estimates) => this.#judge(set, input, findings, estimates ?? undefined));
  }

  /** Refuses (429) a tenant whose evaluation-time budget is spent. */
  admitEvaluation(tenantId: string): void {
    this.#evalTime.admit(tenantId);
  }

  /** Charges evaluation work done outside `judge` (input redaction, a batch's scoring). */
  chargeEvaluation(tenantId: string, ms: number): void {
    this.#evalTime.charge(tenantId, ms);
  }

  /** The tenant's view of the shared policy state, made when the process first serves the tenant. */
  state(tenantId: string): TenantState {
    let s = this.#states.get(tenantId);
    if (!s) {
      // Spend survives restarts: a total is read from LMDB when the process first needs it.
      s = new TenantState(tenantId, this.#tables, (key) => {
        const [agentId, period] = key.split('\0') as [string, string];
        const stored: unknown = this.counters.get(['spend', tenantId, agentId, period]);
        return typeof stored === 'number' ? stored : 0;
      });
      this.#states.set(tenantId, s);
    }
    return s;
  }

  /**
   * Adds an agent's cost (BRL) to its day and month totals. Budget policies read the in-memory totals at once; LMDB
   * gets them once a second (flushSpend), not with two writes per call. A crash loses at most that second of a derived
   * total: each call's cost is in its ledger entry.
   */
  addSpend(tenantId: string, agentId: string, costBrl: number, now: number): void {
    if (!(costBrl > 0)) return;
    const s = this.state(tenantId);
    for (const period of ['day', 'month'] as const) {
      const pk = periodKey(period, now);
      // The agent's total, and the tenant's (tenant-scope budgets).
      for (const who of [agentId, TENANT_SPEND]) {
        const key = `${who}\0${pk}`;
        s.addSpent(key, costBrl, now);
        this.#dirtySpend.add(`${tenantId}\0${key}`);
        this.#shared?.addSpend(tenantId, who, pk, costBrl);
      }
    }
    if (this.#spendTimer === null) this.#spendTimer = setTimeout(() => void this.flushSpend(), 1000).unref();
  }

  /**
   * A tenant-wide total read from Redis: it replaces the local one, never lowering it (a Redis that lost its memory
   * does not hand a budget back; docs/fleet.md).
   */
  applySharedSpend(tenantId: string, who: string, pk: string, total: number): void {
    const key = `${who}\0${pk}`;
    const now = Date.now();
    const s = this.state(tenantId);
    if (!(total > s.spent(key, now))) return;
    s.addSpent(key, 0, now, total);
    this.#dirtySpend.add(`${tenantId}\0${key}`);
    if (this.#spendTimer === null) this.#spendTimer = setTimeout(() => void this.flushSpend(), 1000).unref();
  }

  /** Tenants whose state this process holds (those it served since start): the ones whose shared spend it refreshes. */
  activeTenants(): Iterable<string> {
    return this.#states.keys();
  }

  /** Counts `rate_limit` policy windows and spend on Redis from now on (set once at start when REDIS_URL is set). */
  useSharedLimits(shared: SharedLimits): void {
    this.#shared = shared;
  }

  /**
   * Writes the spend totals these limits changed since their last flush (also called at shutdown). A total is written
   * only over a smaller one: the limits of other threads write the same shared totals, in whatever order their writes
   * commit, and spend only grows.
   */
  flushSpend(): Promise<unknown> {
    this.#spendTimer = null;
    const now = Date.now();
    const writes: { key: [string, string, string, string]; total: number }[] = [];
    for (const dirty of this.#dirtySpend) {
      const [tenantId, agentId, pk] = dirty.split('\0') as [string, string, string];
      const total = this.state(tenantId).takeUnflushedSpend(`${agentId}\0${pk}`, now);
      if (total !== null) writes.push({ key: ['spend', tenantId, agentId, pk], total });
    }
    this.#dirtySpend.clear();
    if (writes.length === 0) return Promise.resolve();
    return this.counters.transaction(() => {
      for (const { key, total } of writes) {
        const stored: unknown = this.counters.get(key);
        if (!(typeof stored === 'number' && stored >= total)) this.counters.put(key, total);
      }
    });
  }
}
