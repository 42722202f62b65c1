import type { Database } from 'lmdb';

/** Who made a stored response: the tenant (and agent) whose call the provider answered with it. */
interface OwnerRecord {
  tenant: string;
  agent: string;
  /** Unix ms. */
  at: number;
}

/**
 * The provider keeps the responses it makes (OpenAI's Responses API, `store`), under ids any holder of the provider key
 * can read, continue (`previous_response_id`) or delete; the key is the gateway's, shared by its tenants. So the gateway
 * remembers which tenant's call made each response id, and lets only that tenant's agents name it again. An id the
 * gateway did not see made is nobody's here (404).
 *
 * Written once per call that made a response, off the request path (LMDB's batched write); until the write commits
 * the id is answered from memory, so an agent that names it at once is not refused.
 */
export class StoredResponses {
  readonly #pending = new Map<string, OwnerRecord>();

  constructor(private readonly db: Database) {}

  /** The tenant whose call made the response, or undefined. */
  owner(id: string): string | undefined {
    return (this.#pending.get(id) ?? (this.db.get(id) as OwnerRecord | undefined))?.tenant;
  }

  /** Records that this tenant's call made the response (once: a stream names its response in several events). */
  remember(id: string, tenant: string, agent: string): void {
    if (this.owner(id) !== undefined) return;
    const rec: OwnerRecord = { tenant, agent, at: Date.now() };
    this.#pending.set(id, rec);
    void this.db.put(id, rec).finally(() => this.#pending.delete(id));
  }

  /** The provider deleted it. */
  forget(id: string): Promise<boolean> {
    this.#pending.delete(id);
    return this.db.remove(id);
  }
}
