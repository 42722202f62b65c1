import type { Database } from 'lmdb';
import { sha256Hex } from '@aduana/shared';

interface HeldRecord {
  decision_id: string;
  at: number;
}

/**
 * A tool call a policy held for an administrator (REQUIRE_APPROVAL, ESCALATE) is answered "held" with its decision id;
 * once an admin resolves that decision (the resolve route), the same call retried (same tenant, agent, server, tool and
 * arguments) follows the resolution: approved, it goes through once; rejected, it is refused. Kept in LMDB, so a
 * restart between the hold and the retry loses nothing.
 */
export class HeldToolCalls {
  /** Holds written but not committed yet (LMDB's batched write): a retry at once must find its hold. */
  readonly #pending = new Map<string, string>();
  /** Approvals used but whose removal is not committed yet: a second call at once must not use them again. */
  readonly #released = new Set<string>();

  constructor(private readonly db: Database) {}

  /** The key of one call: who asks for which tool with which arguments. */
  static keyOf(tenantId: string, agentId: string, server: string, tool: string, argumentsJson: string): string {
    return sha256Hex(`${tenantId}\n${agentId}\n${server}\n${tool}\n${argumentsJson}`);
  }

  /** The decision that holds this call, if one does. */
  decisionOf(key: string): string | undefined {
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    if (this.#released.has(key)) return undefined;
    return (this.db.get(key) as HeldRecord | undefined)?.decision_id;
  }

  hold(key: string, decisionId: string): void {
    this.#pending.set(key, decisionId);
    void this.db.put(key, { decision_id: decisionId, at: Date.now() } satisfies HeldRecord).finally(() => {
      if (this.#pending.get(key) === decisionId) this.#pending.delete(key);
    });
  }

  /** An approval is used once. */
  release(key: string): void {
    this.#pending.delete(key);
    this.#released.add(key);
    void this.db.remove(key).finally(() => this.#released.delete(key));
  }
}
