import type { AgentRegistry } from './agent-registry.js';

export interface MissedHeartbeats {
  (tenantId: string, agentId: string, missed: number, atMs: number): void;
}

/**
 * Counts missed heartbeat intervals, each once (docs/agents.md, "Heartbeats"). Each agent keeps how many intervals
 * since its last heartbeat were already counted, in LMDB, so a restart counts the intervals missed while the gateway
 * was down and never one twice. Runs a few times per interval, off the request path; the first pass runs at start.
 */
export class HeartbeatMonitor {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly agents: AgentRegistry,
    private readonly onMissed: MissedHeartbeats,
    /** Written together after a pass that counted something: the samples and the agents' counted marks. */
    private readonly persist: () => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    const every = Math.max(50, Math.min(this.agents.intervalMs / 4, 5000));
    this.tick();
    this.#timer = setInterval(() => this.tick(), every).unref();
  }

  /** One pass over every agent; returns how many intervals it counted. */
  tick(): number {
    const now = this.now();
    const interval = this.agents.intervalMs;
    let counted = 0;
    for (const s of this.agents.all()) {
      if (s.suspended) continue;
      const missed = s.missed(now, interval);
      if (missed <= s.missedCounted) continue;
      const n = missed - s.missedCounted;
      s.missedCounted = missed;
      s.missedTotal += n;
      this.agents.touched(s);
      this.onMissed(s.tenantId, s.agentId, n, now);
      counted += n;
    }
    if (counted > 0) this.#running = this.persist();
    return counted;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
