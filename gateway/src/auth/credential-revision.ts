import { performance } from 'node:perf_hooks';
import type { Database } from 'lmdb';

const KEY = 'revision';

/** How stale a cached credential may be at most when the change was made by another process (the CLI). */
export const CREDENTIAL_RECHECK_MS = 250;

/**
 * The revision of everything that can end a credential's validity: a token revoked or rotated, a user disabled, a
 * bundle that drops or changes tokens and users. Writers bump it in the transaction of the change; the authenticator
 * keeps principals in memory for as long as the revision it saw holds (docs/authentication.md, "Tokens in memory").
 *
 * Reading the stored counter is an LMDB read, which after another thread's commit costs a read-transaction renewal
 * (tens of microseconds on the proxy's path, bench:overhead), so it is re-read at most every `recheckMs`. A change
 * made in this process is seen at once (`changed()` after its commit); one made by another process sharing the data
 * dir within `recheckMs`.
 */
export class CredentialRevision {
  readonly #db: Database;
  readonly #recheckMs: number;
  #stored = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #generation = 0;

  constructor(db: Database, recheckMs = CREDENTIAL_RECHECK_MS) {
    this.#db = db;
    this.#recheckMs = recheckMs;
  }

  /** Inside the write transaction of a change: the stored counter moves with it (other processes see it). */
  bumpInTransaction(): void {
    this.#db.put(KEY, ((this.#db.get(KEY) as number | undefined) ?? 0) + 1);
  }

  /** After the change committed: this process's cached principals stop being used. */
  changed(): void {
    this.#generation++;
  }

  /**
   * A number that differs from every earlier one once a change was committed (here: at once; elsewhere: within
   * `recheckMs`). Taken before a credential is read from the store, so a principal cached with it never outlives a
   * change committed after that read.
   */
  generation(): number {
    const now = performance.now();
    if (now - this.#checkedAt >= this.#recheckMs) {
      this.#checkedAt = now;
      const stored = (this.#db.get(KEY) as number | undefined) ?? 0;
      if (stored !== this.#stored) {
        this.#stored = stored;
        this.#generation++;
      }
    }
    return this.#generation;
  }
}
