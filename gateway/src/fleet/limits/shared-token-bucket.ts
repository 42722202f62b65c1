import type { Redis, Result } from 'ioredis';
import type { BucketOptions, TakeResult } from '@aduana/shared';

/**
 * One tenant's token bucket, refilled by the time elapsed on Redis's own clock (`TIME`: one clock for every gateway,
 * whatever their drift), then taken from; all in one script, so two gateways never both take the last token.
 * KEYS[1] the bucket; ARGV capacity, refill per second, bucket lifetime (ms). Returns {allowed, wait ms, remaining}.
 */
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2]) / 1000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'last')
local tokens = tonumber(b[1])
local last = tonumber(b[2])
if tokens == nil or last == nil then
  tokens = capacity
  last = now
elseif now > last then
  tokens = math.min(capacity, tokens + (now - last) * perMs)
  last = now
end
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
elseif perMs > 0 then
  wait = math.ceil((1 - tokens) / perMs)
else
  wait = -1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'last', tostring(last))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {allowed, wait, math.floor(tokens)}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    aduanaTake(key: string, capacity: number, refillPerSecond: number, ttlMs: number): Result<[number, number, number], Context>;
  }
}

/** The plan buckets of every gateway sharing one Redis: one EVALSHA per admission. */
export class SharedTokenBuckets {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('aduanaTake', { numberOfKeys: 1, lua: TAKE_LUA });
  }

  async take(key: string, bucket: BucketOptions): Promise<TakeResult> {
    // A full bucket and a missing one are the same: the key lives as long as a refill from empty takes, plus a second.
    const ttlMs = bucket.refillPerSecond > 0 ? Math.ceil((bucket.capacity / bucket.refillPerSecond) * 1000) + 1000 : 86_400_000;
    const [allowed, waitMs, remaining] = await this.redis.aduanaTake(`${this.prefix}rl:{${key}}`, bucket.capacity, bucket.refillPerSecond, ttlMs);
    if (allowed === 1) return { allowed: true, retryAfterS: 0, remaining };
    return { allowed: false, retryAfterS: waitMs < 0 ? 3600 : Math.max(1, Math.ceil(waitMs / 1000)), remaining: 0 };
  }
}
