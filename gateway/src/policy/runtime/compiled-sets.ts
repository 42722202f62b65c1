import { GatewayError } from '../../errors.js';
import { compilePolicySet, type PolicySet } from '../compile-policy-set.js';
import { checkPolicyLimits, type PolicyLimits } from '../policy-limits.js';
import type { PolicyRecord } from '../policy-record.js';
import type { PackName } from '../packs.js';
import type { PolicyRepository } from '../../storage/repositories.js';

/** What a tenant's policy set may cost: the policy limits, and the text one request may ask it to scan. */
export interface SetLimits extends PolicyLimits {
  maxTextChars: number;
}

/**
 * Each tenant's compiled policy set, and its agents' pack sets. Built on the first request after start and replaced
 * when this process changes a tenant's policies (the change compiles its candidate set before it is committed:
 * `compile`, then `install`), never per request.
 */
export class CompiledSets {
  readonly #sets = new Map<string, PolicySet>();
  /** A stored set that failed to compile answers this error until its policies change: compiled once, not per request. */
  readonly #failed = new Map<string, GatewayError>();
  /** Per tenant, the sets of agents with a `policy_pack`: the tenant's policies plus the pack's, compiled at change time. */
  readonly #packSets = new Map<string, Map<PackName, PolicySet>>();
  /** The policies each pack adds for an agent (none until `usePackPolicies`). */
  #packPolicies: (pack: PackName) => readonly PolicyRecord[] = () => [];
  /** Compilations done (sets built or refused): they are costly, so tests and metrics watch how often they happen. */
  compiles = 0;
  /** Told when a tenant's policies changed here: request threads are told (TENANT_RUNTIME_CHANGES). */
  onChange: ((tenantId: string) => void) | null = null;

  constructor(
    private readonly policies: PolicyRepository,
    private readonly limits: SetLimits,
  ) {}

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
    this.onChange?.(set.tenantId);
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
    this.onChange?.(tenantId);
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
}
