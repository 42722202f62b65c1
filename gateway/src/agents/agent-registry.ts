import type { Database } from 'lmdb';
import { GatewayError } from '../errors.js';
import { NoticeSlot } from '../platform/notice-slot.js';
import type { PackName } from '../policy/packs.js';
import { AgentState, type StoredAgent } from './agent-state.js';
import { pageAgents, type AgentPage, type ListQuery } from './agent-page.js';

export type { AgentPage, ListQuery } from './agent-page.js';

/** Weight of a new decision in an agent's risk_score (an exponentially decayed mean; docs/agents.md). */
const RISK_ALPHA = 0.1;

/** Agents whose puts one turn of the event loop queues when the registry flushes. */
const FLUSH_CHUNK = 128;

export interface AgentRegistryOptions {
  intervalMs: number;
  requireRegistered: boolean;
  maxPerTenant: number;
  flushMs: number;
  /** Called when an agent's pack is set, so its policy set is compiled then, not on a request. */
  onPack?: (tenantId: string, pack: PackName) => void;
  /**
   * A request thread's copy (threads/request-thread-gateway.ts): it writes nothing; its profiles follow the main
   * thread's registry (`replicate`), which keeps last contact, risk and heartbeats from what the thread tells it.
   */
  replica?: boolean;
  /** Told when an agent is registered or its profile changes (the main thread tells its request threads). */
  onProfile?: (agent: StoredAgent) => void;
  now?: () => number;
}

/** An agent registered, or its profile changed on the main thread (`onProfile`): a request thread's replica takes it (`replicate`). */
export const AGENT_PROFILES = new NoticeSlot<StoredAgent>('agent-profiles');

export interface AgentProfile {
  name?: string;
  policy_pack?: PackName | null;
  risk_budget?: number | null;
  metadata?: Record<string, unknown> | null;
}

/**
 * Every agent of every tenant, in memory (a Map per tenant), loaded once at start: the request path reads and updates
 * only memory. `last_seen`, `risk_score` and heartbeat state are written to LMDB in batches every `flushMs` (one put
 * per changed agent, not one per call); profile changes (register, update, suspend, resume) are written before they
 * are answered. Plain in-process functions, so the console and the HTTP routes share them.
 */
export class AgentRegistry {
  readonly #tenants = new Map<string, Map<string, AgentState>>();
  #dirty: AgentState[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** The flush being written: the next one starts after it, so close() waits for both. */
  #flushing: Promise<unknown> = Promise.resolve();
  readonly #now: () => number;

  constructor(
    private readonly db: Database,
    readonly options: AgentRegistryOptions,
  ) {
    this.#now = options.now ?? Date.now;
    for (const { value } of db.getRange({})) {
      const s = AgentState.from(value as StoredAgent);
      this.#tenant(s.tenantId).set(s.agentId, s);
    }
  }

  get intervalMs(): number {
    return this.options.intervalMs;
  }

  /** Every loaded agent (the heartbeat monitor walks them). */
  *all(): IterableIterator<AgentState> {
    for (const agents of this.#tenants.values()) yield* agents.values();
  }

  get(tenantId: string, agentId: string): AgentState | undefined {
    return this.#tenants.get(tenantId)?.get(agentId);
  }

  /**
   * The request path's one call (decide, proxy): the agent, registered on first use unless registration is required;
   * `last_seen` is set in memory. The caller refuses a suspended agent (it records that decision).
   */
  admit(tenantId: string, agentId: string, now: number): AgentState {
    let s = this.#tenants.get(tenantId)?.get(agentId);
    if (s === undefined) {
      if (this.options.requireRegistered) throw new GatewayError('agent_unregistered', `agent "${agentId.slice(0, 256)}" is not registered`, 'agent_unregistered');
      s = this.#create(tenantId, agentId, now);
    }
    s.lastSeen = now;
    this.#touch(s);
    return s;
  }

  /** The agent's configured risk budget, for bond_enforcement (null when it has none). */
  riskBudget(tenantId: string, agentId: string): number | null {
    return this.#tenants.get(tenantId)?.get(agentId)?.riskBudget ?? null;
  }

  /** A decision's risk, folded into the agent's decayed mean (memory now, LMDB with the next batch). */
  observeRisk(tenantId: string, agentId: string, risk: number): void {
    const s = this.#tenants.get(tenantId)?.get(agentId);
    if (!s) return;
    s.riskScore += RISK_ALPHA * (risk - s.riskScore);
    this.#touch(s);
  }

  /**
   * Registers an agent or updates its profile; written before it resolves. `created` tells which. Changing an
   * existing agent's pack or risk budget is the caller's to authorise (`governs` says whether the profile asks to).
   */
  async upsert(tenantId: string, agentId: string, profile: AgentProfile, authorise?: (changesGovernance: boolean) => void): Promise<{ agent: AgentState; created: boolean }> {
    const now = this.#now();
    let s = this.get(tenantId, agentId);
    const created = s === undefined;
    if (s) {
      const changesPack = profile.policy_pack !== undefined && profile.policy_pack !== s.policyPack;
      const changesBudget = profile.risk_budget !== undefined && profile.risk_budget !== s.riskBudget;
      authorise?.(changesPack || changesBudget);
    } else {
      s = this.#create(tenantId, agentId, now);
    }
    if (profile.name !== undefined) s.name = profile.name;
    if (profile.policy_pack !== undefined) s.policyPack = profile.policy_pack;
    if (profile.risk_budget !== undefined) s.riskBudget = profile.risk_budget;
    if (profile.metadata !== undefined) s.metadata = profile.metadata;
    s.updatedAt = now;
    if (s.policyPack) this.options.onPack?.(tenantId, s.policyPack);
    await this.#write(s);
    this.options.onProfile?.(s.toStored());
    return { agent: s, created };
  }

  /** A heartbeat: the agent is ACTIVE again and its missed-interval count restarts (memory now, LMDB with the batch). */
  heartbeat(tenantId: string, agentId: string, reported: { status?: string; metadata?: Record<string, unknown> }): AgentState {
    const now = this.#now();
    const s = this.admit(tenantId, agentId, now);
    s.heartbeatBase = now;
    s.missedCounted = 0;
    if (reported.status !== undefined) s.reportedStatus = reported.status;
    if (reported.metadata !== undefined) s.metadata = reported.metadata;
    return s;
  }

  /** Suspends or resumes an agent (an admin's act); undefined when it does not exist. */
  async setSuspended(tenantId: string, agentId: string, suspended: boolean): Promise<AgentState | undefined> {
    const s = this.get(tenantId, agentId);
    if (!s) return undefined;
    const now = this.#now();
    if (s.suspended !== suspended) {
      s.suspended = suspended;
      // Resumed: heartbeats are expected from now on, not owed for the time it was suspended.
      if (!suspended) {
        s.heartbeatBase = now;
        s.missedCounted = 0;
      }
      s.updatedAt = now;
    }
    await this.#write(s);
    this.options.onProfile?.(s.toStored());
    return s;
  }

  /**
   * A replica takes the main registry's record of an agent: its profile (name, pack, risk budget, metadata,
   * suspension); what it tracks of contact is the main registry's to keep.
   */
  replicate(stored: StoredAgent): void {
    const incoming = AgentState.from(stored);
    const s = this.get(incoming.tenantId, incoming.agentId);
    if (s === undefined) {
      this.#tenant(incoming.tenantId).set(incoming.agentId, incoming);
      return;
    }
    s.name = incoming.name;
    s.policyPack = incoming.policyPack;
    s.riskBudget = incoming.riskBudget;
    s.metadata = incoming.metadata;
    s.suspended = incoming.suspended;
    s.updatedAt = incoming.updatedAt;
  }

  /** A page of the tenant's agents in agent-id order, optionally of one status; `cursor` is the last id seen. */
  list(tenantId: string, query: ListQuery): AgentPage {
    return pageAgents(this.#tenants.get(tenantId)?.values() ?? [], query, this.#now(), this.options.intervalMs);
  }

  /** Marks an agent changed by the heartbeat monitor. */
  touched(s: AgentState): void {
    this.#touch(s);
  }

  /**
   * Writes every changed agent; also called at shutdown, and resolves once every flush so far is written. The puts are
   * queued FLUSH_CHUNK at a time, a turn of the event loop apart: encoding 1,024 agents at once held the loop for 4-7 ms.
   * An agent waiting in a later chunk stays dirty and is written as it is when its chunk's turn comes.
   */
  flush(): Promise<unknown> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const run = this.#flushing.then(() => this.#writeDirty());
    this.#flushing = run.catch(() => undefined);
    return run;
  }

  async #writeDirty(): Promise<unknown> {
    const dirty = this.#dirty;
    this.#dirty = [];
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < dirty.length; i++) {
      if (i > 0 && i % FLUSH_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
      const s = dirty[i] as AgentState;
      s.dirty = false;
      writes.push(this.db.put([s.tenantId, s.agentId], s.toStored()));
    }
    return Promise.all(writes);
  }

  close(): Promise<unknown> {
    return this.flush();
  }

  #tenant(tenantId: string): Map<string, AgentState> {
    let m = this.#tenants.get(tenantId);
    if (!m) {
      m = new Map();
      this.#tenants.set(tenantId, m);
    }
    return m;
  }

  #create(tenantId: string, agentId: string, now: number): AgentState {
    const agents = this.#tenant(tenantId);
    if (agents.size >= this.options.maxPerTenant) throw new GatewayError('agent_limit', `this tenant has ${agents.size} agents, the most it may register`, 'agent_limit');
    const s = new AgentState(tenantId, agentId);
    s.name = agentId;
    // Registering is contact: seen now, and its first heartbeat is due one interval from now.
    s.lastSeen = now;
    s.heartbeatBase = now;
    s.createdAt = now;
    s.updatedAt = now;
    agents.set(agentId, s);
    this.#touch(s);
    this.options.onProfile?.(s.toStored());
    return s;
  }

  #touch(s: AgentState): void {
    if (s.dirty || this.options.replica === true) return;
    s.dirty = true;
    this.#dirty.push(s);
    if (this.#timer === null) this.#timer = setTimeout(() => void this.flush(), this.options.flushMs).unref();
  }

  #write(s: AgentState): Promise<unknown> {
    return this.db.put([s.tenantId, s.agentId], s.toStored());
  }
}
