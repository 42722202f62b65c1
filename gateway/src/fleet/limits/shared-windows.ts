import type { Redis, Result } from 'ioredis';

/**
 * Counts one hit in each of a request's `rate_limit` policy windows and answers each window's estimate, the same
 * sliding window as one gateway's (policy/tenant-state.ts `hit`: the previous fixed window's count weighted by its
 * remaining overlap), on Redis's own clock (`TIME`) so gateways' clock drift does not matter; all in one script, so
 * no hit of any gateway is lost between a read and a write. KEYS: the windows; ARGV: each window's length (ms).
 * A window's hash lives two windows (it is the next one's `previous`). Estimates are answered as strings: a Lua number
 * in a reply would be cut to an integer.
 */
const HIT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for k = 1, #KEYS do
  local windowMs = tonumber(ARGV[k])
  local start = now - (now % windowMs)
  local w = redis.call('HMGET', KEYS[k], 'start', 'count', 'previous')
  local s = tonumber(w[1])
  local count = tonumber(w[2]) or 0
  local previous = tonumber(w[3]) or 0
  if s == nil then
    count = 0
    previous = 0
  elseif s ~= start then
    if start - s == windowMs then previous = count else previous = 0 end
    count = 0
  end
  count = count + 1
  redis.call('HSET', KEYS[k], 'start', start, 'count', count, 'previous', previous)
  redis.call('PEXPIRE', KEYS[k], 2 * windowMs)
  out[k] = tostring(count + previous * (1 - (now - start) / windowMs))
end
return out
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    aduanaHit(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Result<string[], Context>;
  }
}

/** One window a request counts in: its key within the tenant (a policy id, with the agent id for agent scope). */
export interface WindowHit {
  key: string;
  windowMs: number;
}

/** The `rate_limit` policy windows of every gateway sharing one Redis: one EVALSHA per judged request. */
export class SharedWindows {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('aduanaHit', { lua: HIT_LUA });
  }

  /** Counts a hit in each window; answers each window's estimated hits in its last `windowMs`, this one included. */
  async hit(tenantId: string, windows: readonly WindowHit[]): Promise<number[]> {
    const args: (string | number)[] = [];
    for (const w of windows) args.push(`${this.prefix}rw:{${tenantId}}:${w.key}`);
    for (const w of windows) args.push(w.windowMs);
    const reply = await this.redis.aduanaHit(windows.length, ...args);
    return reply.map(Number);
  }
}
