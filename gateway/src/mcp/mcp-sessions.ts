import { LRUCache } from 'lru-cache';

/** Whose an MCP session is: the tenant (and agent) whose `initialize` opened it through the gateway. */
export interface SessionOwner {
  tenantId: string;
  agentId: string;
}

/**
 * The MCP server gives each session an id (`Mcp-Session-Id`) that any holder may present; the server's credentials
 * are the sidecar's, shared by its tenants. So a session is bound to the tenant whose `initialize` opened it, and
 * another tenant presenting its id is told the session does not exist (404, as the transport says of an unknown one:
 * its client opens a new session). Kept in memory, bounded: after a restart a client re-initializes, as it would
 * after the server's own restart.
 */
export class McpSessions {
  readonly #owners: LRUCache<string, SessionOwner>;

  // lru-cache allocates its arrays for `max` entries up front (~35 bytes each): sized for the agents of one sidecar.
  constructor(max = 10_000, idleMs = 24 * 3_600_000) {
    this.#owners = new LRUCache({ max, ttl: idleMs, updateAgeOnGet: true });
  }

  /** Key: the server's name and the session id (two servers may number sessions alike). */
  owner(server: string, sessionId: string): SessionOwner | undefined {
    return this.#owners.get(`${server}\n${sessionId}`);
  }

  bind(server: string, sessionId: string, owner: SessionOwner): void {
    this.#owners.set(`${server}\n${sessionId}`, owner);
  }

  forget(server: string, sessionId: string): void {
    this.#owners.delete(`${server}\n${sessionId}`);
  }
}
