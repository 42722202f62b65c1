import type { Database } from 'lmdb';
import { SharedTable, type SharedTableMemory } from '../../platform/shared-table.js';

/** Who made a stored response: the tenant (and agent) whose call the provider answered with it. */
interface OwnerRecord {
  tenant: string;
  agent: string;
  /** Unix ms. */
  at: number;
}

/**
 * The provider keeps the responses it makes (OpenAI's Responses API, `store`), under ids any holder of the provider key
 * can read, continue (`previous_response_id`) or delete, and each of their output items (messages, function calls,
 * reasoning, hosted tools' calls) under an id of its own that a later call may name as input; the key is the gateway's,
 * shared by its tenants. So the gateway remembers which tenant's call made each response id and item id (one table:
 * the provider's ids do not collide), and lets only that tenant's agents name it again. An id the gateway did not see
 * made is nobody's here (404).
 *
 * Written once per id, off the request path (LMDB's batched write); until the write commits the id is answered from
 * memory, so an agent that names it at once is not refused.
 */
export class StoredResponses {
  readonly #pending = new Map<string, OwnerRecord>();
  /**
   * The process's responses remembered in the last minute, (tenant, id) → when, in shared memory: another thread
   * of the process whose write has not committed yet is believed, as this thread's own pending ones are.
   */
  readonly #recent: SharedTable;

  constructor(
    private readonly db: Database,
    recent: SharedTableMemory = createRecentResponses(),
  ) {
    this.#recent = new SharedTable(recent);
  }

  get recentMemory(): SharedTableMemory {
    return this.#recent.memory;
  }

  /** Whether the response or item is the tenant's: its call made it (here, or on another thread, a moment ago). */
  ownedBy(id: string, tenant: string): boolean {
    if (id.length === 0 || id.length > MAX_ID) return false;
    const known = this.#pending.get(id) ?? (this.db.get(id) as OwnerRecord | undefined);
    if (known !== undefined) return known.tenant === tenant;
    const slot = this.#recent.find(tenant, id);
    if (slot === -1) return false;
    const at = this.#recent.values[slot * this.#recent.stride + 1] as number;
    this.#recent.release(slot);
    return Date.now() - at < RECENT_MS;
  }

  /** Records that this tenant's call made the response or item (once: a stream names each in several events). */
  remember(id: string, tenant: string, agent: string): void {
    // An id longer than any the provider mints is not kept (nor could LMDB key it): naming it is refused.
    if (id.length > MAX_ID || this.#pending.has(id) || this.db.get(id) !== undefined) return;
    const now = Date.now();
    const rec: OwnerRecord = { tenant, agent, at: now };
    this.#pending.set(id, rec);
    const slot = this.#recent.acquire(tenant, id, now);
    this.#recent.values[slot * this.#recent.stride + 1] = now;
    this.#recent.release(slot);
    void this.db.put(id, rec).finally(() => this.#pending.delete(id));
  }

  /** The provider deleted it, at its tenant's call: every thread of the process stops believing it is theirs. */
  forget(id: string, tenant: string): Promise<boolean> {
    this.#pending.delete(id);
    const slot = this.#recent.find(tenant, id);
    if (slot !== -1) {
      this.#recent.values[slot * this.#recent.stride + 1] = 0;
      this.#recent.release(slot);
    }
    return this.db.remove(id);
  }
}

/** The longest id remembered (OpenAI's are under 100 characters). */
const MAX_ID = 256;

/** How long a remembered response is believed from shared memory: far longer than any write takes to commit. */
const RECENT_MS = 60_000;

export function createRecentResponses(): SharedTableMemory {
  return SharedTable.create(1 << 14, 1);
}
