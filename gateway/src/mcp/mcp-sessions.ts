import type { Database } from 'lmdb';

/** Whose an MCP session is: the tenant and the agent whose `initialize` opened it through the gateway. */
export interface SessionOwner {
  tenantId: string;
  agentId: string;
}

/** How many sessions a tenant may hold: its plan's share (MCP_SESSIONS_MAX). */
export type SessionShare = (tenantId: string) => number;

/** One binding in memory. */
interface Binding {
  readonly agentId: string;
  /** Unix ms of its last use. */
  usedAt: number;
  /** The `usedAt` its stored record carries. */
  storedAt: number;
}

/** One binding in LMDB, under [tenant, server, session id]. */
interface StoredBinding {
  agent: string;
  at: number;
}

/** The longest session id bound (the longest an agent may present). */
export const MAX_SESSION_ID = 256;
const DAY_MS = 24 * 3_600_000;
/** A binding's stored last use is rewritten at most this often: idle expiry after a restart is this coarse. */
const STORE_USE_EVERY_MS = 3_600_000;

/**
 * The MCP server gives each session an id (`Mcp-Session-Id`) that any holder may present; the server's credentials
 * are the sidecar's, shared by its tenants and their agents. So a session is bound to the tenant and the agent whose
 * `initialize` opened it, and anyone else presenting its id is told the session does not exist (404, as the transport
 * says of an unknown one: its client opens a new session), never that it is someone else's.
 *
 * Each tenant has its own share of the table (its plan's, `SessionShare`): a tenant that opens more forgets its own
 * least recently used session, never another tenant's. A session unused for a day is forgotten. Bindings are kept in
 * LMDB too, so a restart keeps them (the server may still know the session); memory is the source of truth while the
 * process runs, and the store is written off the request path (a binding, its end, and its use at most once an hour).
 * The table lives on the main thread: request threads relay MCP's routes to it.
 */
export class McpSessions {
  /** Per tenant, `${server}\n${session id}` → binding, least recently used first (a use moves it to the end). */
  readonly #tenants = new Map<string, Map<string, Binding>>();

  constructor(
    private readonly db: Database,
    private readonly shareOf: SessionShare,
    private readonly idleMs = DAY_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.#load();
  }

  /**
   * Whether the session is this tenant's and this agent's; a use when it is. An unknown session, another tenant's or
   * another agent's all answer false alike.
   */
  owns(tenantId: string, agentId: string, server: string, sessionId: string): boolean {
    const table = this.#tenants.get(tenantId);
    if (table === undefined) return false;
    const key = `${server}\n${sessionId}`;
    const b = table.get(key);
    if (b === undefined || b.agentId !== agentId) return false;
    const now = this.now();
    if (now - b.usedAt > this.idleMs) {
      this.#drop(tenantId, table, key);
      return false;
    }
    b.usedAt = now;
    table.delete(key);
    table.set(key, b);
    if (now - b.storedAt > STORE_USE_EVERY_MS) {
      b.storedAt = now;
      void this.db.put([tenantId, server, sessionId], { agent: agentId, at: now } satisfies StoredBinding);
    }
    return true;
  }

  /** Binds a session the server just opened; past the tenant's share its least recently used sessions are forgotten. */
  bind(server: string, sessionId: string, owner: SessionOwner): void {
    if (sessionId.length === 0 || sessionId.length > MAX_SESSION_ID) return;
    const { tenantId, agentId } = owner;
    let table = this.#tenants.get(tenantId);
    if (table === undefined) this.#tenants.set(tenantId, (table = new Map()));
    const key = `${server}\n${sessionId}`;
    table.delete(key);
    const now = this.now();
    const share = Math.max(1, this.shareOf(tenantId));
    for (const [oldest, b] of table) {
      if (table.size < share && now - b.usedAt <= this.idleMs) break;
      this.#drop(tenantId, table, oldest);
    }
    table.set(key, { agentId, usedAt: now, storedAt: now });
    // (Forgetting the last of its sessions above took the tenant's table out.)
    this.#tenants.set(tenantId, table);
    void this.db.put([tenantId, server, sessionId], { agent: agentId, at: now } satisfies StoredBinding);
  }

  /** The session ended (the agent's DELETE, or the server no longer knows it). */
  forget(tenantId: string, server: string, sessionId: string): void {
    const table = this.#tenants.get(tenantId);
    if (table !== undefined) this.#drop(tenantId, table, `${server}\n${sessionId}`);
  }

  /** Sessions the tenant holds (expired ones included until they are found so). */
  count(tenantId: string): number {
    return this.#tenants.get(tenantId)?.size ?? 0;
  }

  #drop(tenantId: string, table: Map<string, Binding>, key: string): void {
    if (!table.delete(key)) return;
    if (table.size === 0) this.#tenants.delete(tenantId);
    const cut = key.indexOf('\n');
    void this.db.remove([tenantId, key.slice(0, cut), key.slice(cut + 1)]);
  }

  /** The stored bindings, each tenant's in the order of their last use; expired or unreadable ones are removed. */
  #load(): void {
    const now = this.now();
    const found = new Map<string, { key: string; b: Binding }[]>();
    for (const { key, value } of this.db.getRange()) {
      const k = key as unknown;
      const v = value as Partial<StoredBinding> | undefined;
      const readable = Array.isArray(k) && k.length === 3 && k.every((x) => typeof x === 'string') && typeof v?.agent === 'string' && typeof v.at === 'number';
      if (!readable || now - (v.at as number) > this.idleMs) {
        void this.db.remove(key);
        continue;
      }
      const [tenantId, server, sessionId] = k as [string, string, string];
      let list = found.get(tenantId);
      if (list === undefined) found.set(tenantId, (list = []));
      list.push({ key: `${server}\n${sessionId}`, b: { agentId: v.agent as string, usedAt: v.at as number, storedAt: v.at as number } });
    }
    // Not cut to the tenants' shares here: a sidecar may not know its tenants' plans yet. A tenant's next session does.
    for (const [tenantId, list] of found) {
      list.sort((a, b) => a.b.usedAt - b.b.usedAt);
      this.#tenants.set(tenantId, new Map(list.map((x) => [x.key, x.b])));
    }
  }
}
