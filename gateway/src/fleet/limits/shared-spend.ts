import type { Redis, Result } from 'ioredis';

/**
 * Adds each hash's deltas and answers, per hash, the new totals of the fields it added to; a hash sent with no deltas
 * (the periodic read-back) is answered whole (all agents' totals of that tenant and period). Answering only what was
 * touched keeps a call's reply small however many agents a tenant has (the whole hash of 4,096 agents, parsed per
 * proxied call, cost milliseconds). KEYS: `spend:{tenant}:<period key>` hashes (field: agent id, '' for the tenant's
 * total). ARGV: each key's lifetime (s), then per key: a count n and n field/delta pairs. A hash expires a day past
 * the end of its period.
 */
const SPEND_LUA = `
local out = {}
local i = #KEYS + 1
for k = 1, #KEYS do
  local n = tonumber(ARGV[i])
  i = i + 1
  if n > 0 then
    local touched = {}
    for j = 1, n do
      touched[#touched + 1] = ARGV[i]
      touched[#touched + 1] = redis.call('HINCRBYFLOAT', KEYS[k], ARGV[i], ARGV[i + 1])
      i = i + 2
    end
    redis.call('EXPIRE', KEYS[k], ARGV[k])
    out[k] = touched
  else
    out[k] = redis.call('HGETALL', KEYS[k])
  end
end
return out
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    aduanaSpend(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Result<string[][], Context>;
  }
}

const DAY_S = 86_400;

/** Lifetime of a period's hash: the period (a day, or at most 31 days) and one day more, seconds. */
function lifetimeS(periodKey: string): number {
  return periodKey.length === 10 ? 2 * DAY_S : 32 * DAY_S;
}

/** Where the tenant-wide totals go: the memory budget policies read synchronously. */
export interface SpendTotals {
  /** One total (BRL) of an agent (or '' for the tenant) in a period, as Redis holds it with this process's unsent part. */
  applySharedSpend(tenantId: string, who: string, periodKey: string, total: number): void;
}

type Deltas = Map<string, Map<string, number>>;

/**
 * Spend per agent and tenant, day and month, counted in Redis for every gateway of a tenant. A cost is added to the
 * local total at once (budget policies read memory), and its delta is sent on the next turn of the event loop; the
 * reply carries the new totals of what it added to, which replace the local ones (never lowering them). `sync` also refreshes
 * active tenants periodically, so spend made at another gateway is seen here within that period. Deltas Redis did not
 * take stay pending and are sent when it returns.
 */
export class SharedSpend {
  /** tenant -> period key -> agent ('' = tenant) -> BRL not yet sent. */
  readonly #pending = new Map<string, Deltas>();
  #scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly totals: SpendTotals,
    private readonly isReady: () => boolean,
    private readonly onFailure: (tenantId: string) => void,
  ) {
    redis.defineCommand('aduanaSpend', { lua: SPEND_LUA });
  }

  add(tenantId: string, who: string, periodKey: string, brl: number): void {
    this.#merge(tenantId, who, periodKey, brl);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        void this.sync([...this.#pending.keys()], []);
      });
    }
  }

  #merge(tenantId: string, who: string, periodKey: string, brl: number): void {
    let tenant = this.#pending.get(tenantId);
    if (!tenant) this.#pending.set(tenantId, (tenant = new Map()));
    let period = tenant.get(periodKey);
    if (!period) tenant.set(periodKey, (period = new Map()));
    period.set(who, (period.get(who) ?? 0) + brl);
  }

  /** Sends each tenant's pending deltas and reads back its totals of `periods` (and of every period it sent). */
  async sync(tenantIds: Iterable<string>, periods: readonly string[]): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const tenantId of tenantIds) runs.push(this.#syncTenant(tenantId, periods));
    await Promise.all(runs);
  }

  async #syncTenant(tenantId: string, periods: readonly string[]): Promise<void> {
    const sending = this.#pending.get(tenantId) ?? new Map<string, Map<string, number>>();
    this.#pending.delete(tenantId);
    const keys = [...new Set([...sending.keys(), ...periods])];
    if (keys.length === 0) return;
    if (!this.isReady()) return this.#failed(tenantId, sending);
    const args: (string | number)[] = keys.map((pk) => `${this.prefix}spend:{${tenantId}}:${pk}`);
    for (const pk of keys) args.push(lifetimeS(pk));
    for (const pk of keys) {
      const deltas = sending.get(pk);
      args.push(deltas?.size ?? 0);
      if (deltas) for (const [who, brl] of deltas) args.push(who, brl);
    }
    let reply: string[][];
    try {
      reply = await this.redis.aduanaSpend(keys.length, ...args);
    } catch {
      // A timeout may have been applied all the same: sending again then counts it twice (budgets err on the safe side).
      return this.#failed(tenantId, sending);
    }
    const unsent = this.#pending.get(tenantId);
    keys.forEach((pk, k) => {
      const flat = reply[k] ?? [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const who = flat[i] as string;
        this.totals.applySharedSpend(tenantId, who, pk, Number(flat[i + 1]) + (unsent?.get(pk)?.get(who) ?? 0));
      }
    });
  }

  /** Keeps what was not sent for the next sync (the periodic one: no retry loop while Redis is away); counted once. */
  #failed(tenantId: string, sending: Deltas): void {
    if (sending.size === 0) return;
    for (const [pk, deltas] of sending) for (const [who, brl] of deltas) this.#merge(tenantId, who, pk, brl);
    this.onFailure(tenantId);
  }

  /** Tenants with deltas not yet in Redis. */
  get pendingTenants(): number {
    return this.#pending.size;
  }
}
