import { randomBytes } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { growingLru } from '@aduana/shared';

/** What a started sign-in must present when it comes back: the checks the callback makes. */
export interface PendingFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * Sign-ins under way, keyed by a random id kept in the browser's flow cookie: the callback is accepted only from the
 * browser that started it, once (the entry is taken out on first use), within OIDC_FLOW_TTL_S. In memory: a restart
 * only asks people who were half-way through to start again.
 */
export class OidcFlows {
  readonly #flows: LRUCache<string, PendingFlow>;

  constructor(ttlMs: number) {
    this.#flows = growingLru(10_000, ttlMs);
  }

  add(flow: PendingFlow): string {
    const id = randomBytes(24).toString('base64url');
    this.#flows.set(id, flow);
    return id;
  }

  /** The flow of that id, removed: a second use finds nothing. */
  take(id: string): PendingFlow | undefined {
    const flow = this.#flows.get(id);
    if (flow) this.#flows.delete(id);
    return flow;
  }
}
