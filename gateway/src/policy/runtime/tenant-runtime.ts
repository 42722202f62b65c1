// Over 300 lines on purpose: the one owner of what the request path needs per tenant (compiled set, policy state, plan,
// evaluation budget, spend); its methods share those caches and their invalidation.
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import { EvaluationTime } from './evaluation-time.js';
import type { Evaluation, EvaluationInput } from '../evaluation.js';
import type { BucketOptions } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { Principal } from '../../identity/auth/principal.js';
import { compilePolicySet, TENANT_SPEND, type InputFindings, type PolicySet } from '../compile-policy-set.js';
import { checkPolicyLimits, type PolicyLimits } from '../policy-limits.js';
import type { PolicyRecord } from '../policy-record.js';
import type { Database } from 'lmdb';
import { PolicyStateTables, TenantState, createPolicyStateMemory, periodKey, type PolicyStateMemory } from '../tenant-state.js';
import { PlanBuckets, createPlanBucketMemory } from '../../identity/tenants/plan-buckets.js';
import type { SharedTableMemory } from '../../platform/shared-table.js';
import { bucketFor, PLAN_NAMES, planLimitExceeded, type Plan } from '../../identity/tenants/plans.js';
import type { LocalBucket, SharedLimits } from '../../fleet/limits/shared-limits.js';
import type { PackName } from '../packs.js';
import type { PolicyRepository, TenantRepository } from '../../storage/repositories.js';
import type { GatewayConfig } from '../../config.js';

/** The limits a gateway (or control plane) compiles and evaluates policies under, from its settings. */
export function evaluationLimits(config: GatewayConfig): EvaluationLimits {
  return {
    maxPolicies: config.policyMaxPolicies,
    maxPatterns: config.policyMaxPatterns,
    maxPatternSize: config.policyMaxPatternSize,
    maxProgramSize: config.policyMaxProgramSize,
    maxTextChars: config.evalMaxTextChars,
    evalBurstMs: config.evalTimeBurstMs,
    evalPerSecondMs: config.evalTimePerSecondMs,
  };
}

/**
 * The shared memory behind the limits a process counts (plan buckets; rate windows, session risk and spend): made
 * once per process and handed to every thread that serves requests, so each limit is counted once.
 */
export interface LimitMemory {
  readonly planBuckets: SharedTableMemory;
  readonly policyState: PolicyStateMemory;
}

export function createLimitMemory(): LimitMemory {
  return { planBuckets: createPlanBucketMemory(), policyState: createPolicyStateMemory() };
}

/** What a tenant's policy set may cost: the policy limits, and the text one request may ask it to scan. */
export interface EvaluationLimits extends PolicyLimits {
  maxTextChars: number;
  /** Evaluation time a tenant may use at once, and earns back per second, ms. */
  evalBurstMs: number;
  evalPerSecondMs: number;
}

/**
 * Per-tenant things the request path needs ready: the compiled policy set, the policy state, the plan. Compiled sets
 * are built on the first request after start and replaced when this process changes a tenant's policies (the change
 * compiles its candidate set before it is committed: `compile`, then `install`), never per request.
 */
export class TenantRuntimes {
  readonly #sets = new Map<string, PolicySet>();
  /** A stored set that failed to compile answers this error until its policies change: compiled once, not per request. */
  readonly #failed = new Map<string, GatewayError>();
  /** Per tenant, the sets of agents with a `policy_pack`: the tenant's policies plus the pack's, compiled at change time. */
  readonly #packSets = new Map<string, Map<PackName, PolicySet>>();
  /** The policies each pack adds for an agent (none until `usePackPolicies`). */
  #packPolicies: (pack: PackName) => readonly PolicyRecord[] = () => [];
  /** Compilations done (sets built or refused): they are costly, so tests and metrics watch how often they happen. */
  compiles = 0;
  readonly #evalTime: EvaluationTime;
  readonly #dirtySpend = new Set<string>();
  #spendTimer: NodeJS.Timeout | null = null;
  /** Views of the shared policy state, one per tenant served (cheap: the records are in `#tables`). */
  readonly #states = new Map<string, TenantState>();
  readonly #tables: PolicyStateTables;
  readonly #buckets: Record<Plan, LocalBucket>;
  readonly #bucketOptions: Record<Plan, BucketOptions>;
  /** With REDIS_URL: plan limits and spend counted tenant-wide (docs/fleet.md, "Shared limits"); null = this process alone. */
  #shared: SharedLimits | null = null;
  /** Plans are re-read every few seconds so `aduana tenant create/plan` from the CLI takes effect without a restart. */
  readonly #plans: LRUCache<string, Plan>;
  /** Told when a tenant's policies or plan changed here: request threads drop their copies (threads/thread-notices). */
  onChange: ((tenantId: string, what: 'policies' | 'plan') => void) | null = null;

  constructor(
    private readonly tenants: TenantRepository,
    private readonly policies: PolicyRepository,
    private readonly counters: Database,
    private readonly limits: EvaluationLimits,
    now: () => number = Date.now,
    memory: LimitMemory = createLimitMemory(),
  ) {
    this.#bucketOptions = Object.fromEntries(PLAN_NAMES.map((p) => [p, bucketFor(p)])) as Record<Plan, BucketOptions>;
    const planBuckets = new PlanBuckets(memory.planBuckets, now);
    this.#buckets = Object.fromEntries(PLAN_NAMES.map((p) => [p, { take: (tenantId: string) => planBuckets.take(p, this.#bucketOptions[p], tenantId) }])) as Record<Plan, LocalBucket>;
    this.#tables = new PolicyStateTables(memory.policyState);
    this.#plans = new LRUCache({ max: 10_000, ttl: 5_000 });
    this.#evalTime = new EvaluationTime(limits.evalBurstMs, limits.evalPerSecondMs, now);
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

  /** The tenant's compiled set; throws policy_set_invalid (cached, fail closed) when its stored set cannot compile. */
  policySet(tenantId: string): PolicySet {
    const set = this.#sets.get(tenantId);
    if (set) return set;
    const failed = this.#failed.get(tenantId);
    if (failed) throw failed;
    try {
      return this.#install(this.compile(tenantId, this.policies.version(tenantId), this.policies.all(tenantId)));
    } catch (err) {
      const why = err instanceof GatewayError ? err.message : String(err);
      const cached = new GatewayError('policy_set_invalid', `the tenant's policy set cannot be compiled (${why}); change its policies`);
      this.#failed.set(tenantId, cached);
      throw cached;
    }
  }

  /**
   * Checks a candidate policy set against the limits and compiles it; throws invalid_request (400) when it is over a
   * limit or RE2 cannot build it. Policy changes call this before they commit, so a set that cannot run is never stored.
   */
  compile(tenantId: string, version: number, policies: readonly PolicyRecord[]): PolicySet {
    this.compiles++;
    checkPolicyLimits(policies, this.limits);
    try {
      return compilePolicySet(tenantId, version, policies, this.limits.maxTextChars);
    } catch (err) {
      throw new GatewayError('invalid_request', `the tenant's policy set cannot be compiled: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Makes a compiled set the tenant's current one (after its change was committed); its agents' pack sets follow. */
  install(set: PolicySet): PolicySet {
    this.#install(set);
    this.onChange?.(set.tenantId, 'policies');
    return set;
  }

  #install(set: PolicySet): PolicySet {
    this.#failed.delete(set.tenantId);
    this.#sets.set(set.tenantId, set);
    const packs = this.#packSets.get(set.tenantId);
    if (packs) {
      for (const pack of [...packs.keys()]) {
        try {
          packs.set(pack, this.#compilePack(set, pack));
        } catch {
          // Compiled again (and its error answered) by the next agent that needs it.
          packs.delete(pack);
        }
      }
    }
    return set;
  }

  /** Drops what is cached for a tenant: the next request compiles what is stored. */
  forget(tenantId: string): void {
    this.#sets.delete(tenantId);
    this.#failed.delete(tenantId);
    this.#packSets.delete(tenantId);
    this.onChange?.(tenantId, 'policies');
  }

  /** Drops the cached plan of a tenant: the next request reads the stored one (a sidecar taking a new bundle). */
  refreshPlan(tenantId: string): void {
    this.#plans.delete(tenantId);
    this.onChange?.(tenantId, 'plan');
  }

  /** Where the policies of agents' packs come from (set once at start). */
  usePackPolicies(packPolicies: (pack: PackName) => readonly PolicyRecord[]): void {
    this.#packPolicies = packPolicies;
  }

  /**
   * The set that judges an agent: its tenant's, or with a `policy_pack`, the tenant's plus that pack's policies (those
   * the tenant already has from the same pack are not added twice). Compiled when the pack is set or the tenant's
   * policies change (`install`), then read from memory.
   */
  agentSet(tenantId: string, pack: PackName | null): PolicySet {
    if (pack === null) return this.policySet(tenantId);
    const cached = this.#packSets.get(tenantId)?.get(pack);
    if (cached) return cached;
    const set = this.#compilePack(this.policySet(tenantId), pack);
    let packs = this.#packSets.get(tenantId);
    if (!packs) {
      packs = new Map();
      this.#packSets.set(tenantId, packs);
    }
    packs.set(pack, set);
    return set;
  }

  #compilePack(base: PolicySet, pack: PackName): PolicySet {
    const have = new Set(base.records.map((r) => r.pack_key).filter((k): k is string => k !== null));
    const added = this.#packPolicies(pack).filter((r) => r.pack_key === null || !have.has(r.pack_key));
    this.compiles++;
    try {
      return compilePolicySet(base.tenantId, base.version, [...base.records, ...added], this.limits.maxTextChars);
    } catch (err) {
      throw new GatewayError('policy_set_invalid', `the agent's policy set (${pack}) cannot be compiled: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

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

  /** Counts plan limits, `rate_limit` policy windows and spend on Redis from now on (set once at start when REDIS_URL is set). */
  useSharedLimits(shared: SharedLimits): void {
    this.#shared = shared;
  }

  /**
   * Writes the spend totals this runtime changed since its last flush (also called at shutdown). A total is written
   * only over a smaller one: runtimes of other threads write the same shared totals, in whatever order their writes
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

  plan(tenantId: string): Plan {
    let plan = this.#plans.get(tenantId);
    if (!plan) {
      plan = this.tenants.get(tenantId)?.plan ?? 'community';
      this.#plans.set(tenantId, plan);
    }
    return plan;
  }

  /**
   * The tenant's plan rate limit (docs/decisions.md, "Limits"): a token bucket per tenant; 429 with Retry-After past it.
   * Synchronous in this process alone; with shared limits a promise (one Redis round trip) unless the plan is unlimited
   * or Redis is away (docs/fleet.md, "Shared limits").
   */
  admit(principal: Principal): void | Promise<void> {
    const tenantId = principal.tenantId;
    const plan = this.plan(tenantId);
    const local = this.#buckets[plan];
    if (this.#shared !== null) {
      const bucket = this.#bucketOptions[plan];
      // An unlimited plan has nothing to count: no round trip.
      if (bucket.capacity !== Infinity) return this.#shared.admit(tenantId, bucket, local);
    }
    const r = local.take(tenantId);
    if (!r.allowed) throw planLimitExceeded(r.retryAfterS);
  }
}
