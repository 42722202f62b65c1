import { performance } from 'node:perf_hooks';
import type { Database, RootDatabase } from 'lmdb';
import { NoticeSlot } from '../platform/notice-slot.js';

const KEY = 'revision';

/** How stale a cached credential may be at most when the change was made by another process (the CLI). */
export const CREDENTIAL_RECHECK_MS = 250;

/**
 * The revision of everything that can end a credential's validity: a token revoked or rotated, a user disabled, a
 * bundle that drops or changes tokens and users. Writers make such a change through `change()`, which bumps it in the
 * change's own transaction and announces it in this process once committed; the authenticator
 * keeps principals in memory for as long as the revision it saw holds (docs/authentication.md, "Tokens in memory").
 *
 * Reading the stored counter is an LMDB read, which after another thread's commit costs a read-transaction renewal
 * (tens of microseconds on the proxy's path, bench:overhead), so it is re-read at most every `recheckMs`. A change
 * made in this process is seen at once (`change()` announces it after its commit); one made by another process
 * sharing the data dir within `recheckMs`.
 */
/** A credential's validity may have ended on the main thread: a request thread stops using what it cached (`changedElsewhere`). */
export const CREDENTIAL_CHANGES = new NoticeSlot<null>('credentials');

export class CredentialRevision {
  readonly #db: Database;
  readonly #recheckMs: number;
  #stored = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #generation = 0;
  /** Told after a change was committed here: request threads are told (CREDENTIAL_CHANGES). */
  onChange: (() => void) | null = null;

  constructor(db: Database, recheckMs = CREDENTIAL_RECHECK_MS) {
    this.#db = db;
    this.#recheckMs = recheckMs;
  }

  /**
   * Runs `write` in one transaction of `root` (the environment this revision's database lives in) with the stored
   * counter bumped in it, so other processes see the change with it; once committed, this process's cached
   * principals stop being used. `write` returning false means it changed nothing: no bump.
   */
  async change(root: RootDatabase, write: () => unknown): Promise<void> {
    let changed = false;
    await root.transaction(() => {
      if (write() === false) return;
      this.#db.put(KEY, ((this.#db.get(KEY) as number | undefined) ?? 0) + 1);
      changed = true;
    });
    if (changed) {
      this.#generation++;
      this.onChange?.();
    }
  }

  /** A change another thread of this process committed: principals cached here stop being used at once. */
  changedElsewhere(): void {
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
