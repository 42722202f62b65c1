import { SharedTable, type SharedTableMemory } from '../platform/shared-table.js';

/**
 * The shared memory behind every tenant's policy state: rate-limit windows, sessions' accumulated risk, spend. Made
 * once per process; every thread that judges requests works on the same tables, so a limit is one limit.
 */
export interface PolicyStateMemory {
  readonly windows: SharedTableMemory;
  readonly sessionRisk: SharedTableMemory;
  readonly spend: SharedTableMemory;
}

// Room for a million windows and half a million sessions across all tenants (the in-memory maps held 200,000 and
// 100,000 per tenant), so that a key is taken over for room only when the table is nearly full. Untouched pages cost
// no memory.
const WINDOW_SLOTS = 1 << 20;
const SESSION_SLOTS = 1 << 19;
const SPEND_SLOTS = 1 << 16;
const SESSION_TTL_MS = 24 * 3_600_000;

// Field offsets after a record's last-used time.
const W_START = 1;
const W_COUNT = 2;
const W_PREVIOUS = 3;
const RISK = 1;
const SPENT = 1;
const UNFLUSHED = 2;

export function createPolicyStateMemory(): PolicyStateMemory {
  return {
    windows: SharedTable.create(WINDOW_SLOTS, 3),
    sessionRisk: SharedTable.create(SESSION_SLOTS, 1),
    spend: SharedTable.create(SPEND_SLOTS, 2),
  };
}

/** The tables of one process's (or thread's) view of the policy state memory. */
export class PolicyStateTables {
  readonly windows: SharedTable;
  readonly sessionRisk: SharedTable;
  readonly spend: SharedTable;
  /** A spend record is never taken over while it holds spend not yet written to LMDB. */
  readonly keepSpend = (slot: number): boolean => (this.spend.values[slot * this.spend.stride + UNFLUSHED] as number) > 0;

  constructor(readonly memory: PolicyStateMemory = createPolicyStateMemory()) {
    this.windows = new SharedTable(memory.windows);
    this.sessionRisk = new SharedTable(memory.sessionRisk);
    this.spend = new SharedTable(memory.spend);
  }
}

/**
 * The mutable, per-tenant state policies read: rate-limit windows, each session's accumulated risk and each agent's
 * spend, kept in the process's shared tables under the tenant's keys. It outlives recompilation (keys use policy ids),
 * so changing a policy does not reset a window.
 */
export class TenantState {
  constructor(
    readonly tenantId: string,
    private readonly tables: PolicyStateTables = new PolicyStateTables(),
    /** The stored total of a spend key (`${who}\0${period}`), read once when the key is first needed. */
    private readonly storedSpend: (key: string) => number = () => 0,
  ) {}

  /**
   * Counts one hit in the sliding window `key` (the previous fixed window's count weighted by its remaining overlap) and
   * returns the estimated hits in the last `windowMs` including this one.
   */
  hit(key: string, now: number, windowMs: number): number {
    const t = this.tables.windows;
    const slot = t.acquire(this.tenantId, key, now);
    const v = t.values;
    const at = slot * t.stride;
    try {
      const start = now - (now % windowMs);
      const was = v[at + W_START] as number;
      if (was !== start) {
        v[at + W_PREVIOUS] = start - was === windowMs ? (v[at + W_COUNT] as number) : 0;
        v[at + W_START] = start;
        v[at + W_COUNT] = 0;
      }
      const count = (v[at + W_COUNT] as number) + 1;
      v[at + W_COUNT] = count;
      return count + (v[at + W_PREVIOUS] as number) * (1 - (now - start) / windowMs);
    } finally {
      t.release(slot);
    }
  }

  /** The risk a session's allowed actions added up to (forgotten a day after its last action). */
  sessionRisk(key: string, now: number): number {
    const t = this.tables.sessionRisk;
    const slot = t.acquire(this.tenantId, key, now);
    try {
      if (now - t.previousUse > SESSION_TTL_MS) t.values[slot * t.stride + RISK] = 0;
      return t.values[slot * t.stride + RISK] as number;
    } finally {
      t.release(slot);
    }
  }

  /** Adds an allowed action's risk to its session. */
  addSessionRisk(key: string, risk: number, now: number): void {
    const t = this.tables.sessionRisk;
    const slot = t.acquire(this.tenantId, key, now);
    const at = slot * t.stride + RISK;
    try {
      t.values[at] = (now - t.previousUse > SESSION_TTL_MS ? 0 : (t.values[at] as number)) + risk;
    } finally {
      t.release(slot);
    }
  }

  /** BRL spent under `key` (`${agentId}\0${periodKey}`; the tenant's total under the empty agent id). */
  spent(key: string, now: number): number {
    return this.#spend(key, now, 0, 0);
  }

  /**
   * Adds `amount` to a spend total, or with `atLeast` raises it to that total (never lowering it); returns the total.
   * Either marks the record as not yet written to LMDB.
   */
  addSpent(key: string, amount: number, now: number, atLeast = 0): number {
    return this.#spend(key, now, amount, atLeast);
  }

  /** The total of `key` to write to LMDB, marking it written; null when nothing changed since it was last taken. */
  takeUnflushedSpend(key: string, now: number): number | null {
    const t = this.tables.spend;
    const slot = this.#spendSlot(key, now);
    if (slot === -1) return null;
    try {
      const at = slot * t.stride;
      if (!((t.values[at + UNFLUSHED] as number) > 0)) return null;
      t.values[at + UNFLUSHED] = 0;
      return t.values[at + SPENT] as number;
    } finally {
      t.release(slot);
    }
  }

  #spend(key: string, now: number, amount: number, atLeast: number): number {
    const t = this.tables.spend;
    const slot = this.#spendSlot(key, now);
    // Every record of its slots holds unwritten spend (a flush is due within the second): it counts from what is stored.
    if (slot === -1) return this.storedSpend(key) + amount;
    const at = slot * t.stride;
    try {
      const before = t.values[at + SPENT] as number;
      const after = Math.max(before + amount, atLeast);
      if (after !== before) {
        t.values[at + SPENT] = after;
        t.values[at + UNFLUSHED] = 1;
      }
      return after;
    } finally {
      t.release(slot);
    }
  }

  #spendSlot(key: string, now: number): number {
    const t = this.tables.spend;
    const slot = t.acquire(this.tenantId, key, now, this.tables.keepSpend);
    // Spend survives restarts: a record new to this process starts from the stored total.
    if (slot !== -1 && t.fresh) t.values[slot * t.stride + SPENT] = this.storedSpend(key);
    return slot;
  }
}

// The ISO date is recomputed once a minute, not per call: periodKey runs on every budget check and every metered call.
let cachedMinute = -1;
let cachedIso = '';

export function periodKey(period: 'day' | 'month', now: number): string {
  const minute = Math.floor(now / 60_000);
  if (minute !== cachedMinute) {
    cachedMinute = minute;
    cachedIso = new Date(minute * 60_000).toISOString();
  }
  return period === 'day' ? cachedIso.slice(0, 10) : cachedIso.slice(0, 7);
}
