import { Redis } from 'ioredis';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRedis, type LocalRedis } from '@aduana/shared/local-servers';
import { call, expectEnvelope, startTestGateway, type CallResult, type TestGateway } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { poll } from '../../shared/test/helpers/poll.js';

// Two gateways (separate DATA_DIRs) sharing one Redis: a tenant's plan limit and budgets hold for both together
// (docs/fleet.md, "Shared limits").
let redis: LocalRedis;
let mock: MockUpstream;
let a: TestGateway;
let b: TestGateway;

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };
const proxied = (g: TestGateway, token: string, agent: string, model = 'gpt-4o-mini') =>
  call(g.url, 'POST', '/v1/proxy/chat/completions', { token, body: { ...chat, model }, headers: { 'x-svc-agent-id': agent } });

async function both(id: string, plan: 'community' | 'enterprise'): Promise<[Record<string, string>, Record<string, string>]> {
  return [await a.tenant(id, plan), await b.tenant(id, plan)];
}

/** This gateway's fallback counter and connection gauge, from its Prometheus exposition. */
async function limitsMetrics(g: TestGateway): Promise<{ rateLimit: number; spend: number; connected: number }> {
  const r = await call(g.url, 'GET', '/v1/telemetry/metrics', { token: g.adminToken });
  expect(r.status).toBe(200);
  const families = new Map(parsePrometheusTextFormat(r.text).map((f) => [f.name, f]));
  const fallbacks = families.get('aduana_limits_redis_fallbacks_total')?.metrics ?? [];
  const kind = (k: string) => Number(fallbacks.find((m) => m.labels?.['kind'] === k)?.value ?? NaN);
  const connected = Number(families.get('aduana_limits_redis_connected')?.metrics[0]?.value ?? NaN);
  return { rateLimit: kind('rate_limit'), spend: kind('spend'), connected };
}

/** Sends `n` requests at once, alternating between the gateways and between a bodiless route and a JSON one. */
async function burst(tokens: [Record<string, string>, Record<string, string>], n: number): Promise<{ results: [TestGateway, CallResult][]; elapsedMs: number }> {
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: n }, async (_, i): Promise<[TestGateway, CallResult]> => {
      const g = i % 2 === 0 ? a : b;
      const tok = (i % 2 === 0 ? tokens[0] : tokens[1]) as Record<string, string>;
      const r =
        i % 4 < 2
          ? await call(g.url, 'GET', '/v1/policies', { token: tok['viewer'] })
          : await call(g.url, 'POST', '/v1/decide', { token: tok['admin'], body: { agent_id: 'burst', action: { type: 'x' } } });
      return [g, r];
    }),
  );
  return { results, elapsedMs: performance.now() - started };
}

beforeAll(async () => {
  redis = await startLocalRedis();
  mock = await new MockUpstream().start();
  const overrides = { redisUrl: redis.url, upstreamBaseUrl: mock.url, redisSpendSyncMs: 200, redisReconnectMaxMs: 200 };
  a = await startTestGateway(overrides);
  b = await startTestGateway(overrides);
  // Both connect in the background; the tests start once both reach Redis.
  await poll(async () => (await limitsMetrics(a)).connected + (await limitsMetrics(b)).connected === 2, { what: 'both gateways to connect to Redis', timeoutMs: 5000 });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await mock?.close();
  await redis?.stop();
});

describe('plan rate limit shared on Redis', () => {
  it('two gateways together admit the community burst of 10 plus the refill, then 429 with Retry-After on both', async () => {
    const tokens = await both('fleet-rl', 'community');
    const { results, elapsedMs } = await burst(tokens, 40);
    const ok = results.filter(([, r]) => r.status === 200);
    // Each gateway alone would admit 10 (20 together); shared, the tenant has 10 plus one a second earned back.
    expect(ok.length).toBeGreaterThanOrEqual(10);
    expect(ok.length).toBeLessThanOrEqual(10 + Math.ceil(elapsedMs / 1000));
    for (const g of [a, b]) {
      const refused = results.filter(([at, r]) => at === g && r.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const [, r] of refused) {
        expectEnvelope(r, 429, 'rate_limit_exceeded');
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    // The proxy and the authentication service's /verify are counted by the same shared bucket.
    const received = mock.received.length;
    expectEnvelope(await proxied(a, tokens[0]['operator'] as string, 'rl-agent'), 429, 'rate_limit_exceeded');
    expectEnvelope(await proxied(b, tokens[1]['operator'] as string, 'rl-agent'), 429, 'rate_limit_exceeded');
    expect(mock.received.length).toBe(received);
    expectEnvelope(await call(b.authUrl, 'GET', '/verify', { token: tokens[1]['viewer'] }), 429, 'rate_limit_exceeded');
    // Redis answered every admission: nothing fell back.
    expect((await limitsMetrics(a)).rateLimit).toBe(0);
  });

  it('an enterprise tenant is unlimited on every gateway', async () => {
    const tokens = await both('fleet-big', 'enterprise');
    const { results } = await burst(tokens, 40);
    expect(results.every(([, r]) => r.status === 200)).toBe(true);
  });
});

describe('budgets shared on Redis', () => {
  it('spend through one gateway counts against the tenant budget at the other', async () => {
    const [ta, tb] = await both('fleet-budget', 'enterprise');
    for (const [g, tok] of [[a, ta], [b, tb]] as const) {
      const p = await call(g.url, 'POST', '/v1/policies', { token: tok['admin'], body: { name: 'budget', type: 'budget', risk: 50, rules: { max_cost_brl: 0.05, period: 'day', scope: 'tenant' } } });
      expect(p.status).toBe(200);
    }
    const decideAtB = async () =>
      (await call(b.url, 'POST', '/v1/decide', { token: tb['admin'], body: { agent_id: 'thrifty', action: { type: 'x' } } })).body.envelope.execution_status as string;
    expect(await decideAtB()).toBe('ALLOW');
    // gpt-4o: 1,000 prompt and 1,000 completion tokens cost 0.06875 BRL, past the tenant's 0.05.
    mock.next({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    expect((await proxied(a, ta['operator'] as string, 'spender', 'gpt-4o')).status).toBe(200);
    await expect.poll(decideAtB, { timeout: 3000, interval: 100 }).toBe('DENY');
    // And the proxy at B refuses another agent of the tenant without contacting the provider.
    const received = mock.received.length;
    expect((await proxied(b, tb['operator'] as string, 'another')).status).toBe(403);
    expect(mock.received.length).toBe(received);
  });
});

describe('Redis unreachable', () => {
  it('traffic is served with local limits and counted; when Redis returns the limits are shared again', async () => {
    const [ta] = await both('fleet-down', 'community');
    const before = await limitsMetrics(a);
    await redis.halt();
    await expect.poll(async () => (await limitsMetrics(a)).connected, { timeout: 5000 }).toBe(0);
    // Answered at once from the local bucket: a full one (10), then 429 from this gateway's own count.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call(a.url, 'GET', '/v1/policies', { token: ta['viewer'] })).status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(10)).toContain(429);
    const during = await limitsMetrics(a);
    expect(during.rateLimit - before.rateLimit).toBeGreaterThanOrEqual(12);
    // Spend while Redis is away is enforced locally, counted as a fallback, and sent once Redis is back.
    const [xa, xb] = await both('fleet-down-spend', 'enterprise');
    for (const [g, tok] of [[a, xa], [b, xb]] as const) {
      await call(g.url, 'POST', '/v1/policies', { token: tok['admin'], body: { name: 'budget', type: 'budget', risk: 50, rules: { max_cost_brl: 0.05, period: 'day', scope: 'tenant' } } });
    }
    mock.next({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    expect((await proxied(a, xa['operator'] as string, 'offline-spender', 'gpt-4o')).status).toBe(200);
    await expect.poll(async () => (await limitsMetrics(a)).spend, { timeout: 3000 }).toBeGreaterThan(before.spend);
    expect((await proxied(a, xa['operator'] as string, 'offline-other')).status).toBe(403);
    const decideAtB = async () =>
      (await call(b.url, 'POST', '/v1/decide', { token: xb['admin'], body: { agent_id: 'thrifty', action: { type: 'x' } } })).body.envelope.execution_status as string;
    expect(await decideAtB()).toBe('ALLOW');

    await redis.restart();
    await expect.poll(async () => (await limitsMetrics(a)).connected + (await limitsMetrics(b)).connected, { timeout: 10_000 }).toBe(2);
    await expect.poll(decideAtB, { timeout: 5000, interval: 100 }).toBe('DENY');
    const back = await limitsMetrics(a);
    const tokens = await both('fleet-back', 'community');
    const { results, elapsedMs } = await burst(tokens, 40);
    const ok = results.filter(([, r]) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(10);
    expect(ok).toBeLessThanOrEqual(10 + Math.ceil(elapsedMs / 1000));
    expect((await limitsMetrics(a)).rateLimit).toBe(back.rateLimit);
    // Per tenant too: the tenant's own fallbacks, in /v1/telemetry/query/stats (its shared bucket is fresh again).
    const now = Math.floor(Date.now() / 1000);
    const stats = await call(a.url, 'GET', `/v1/telemetry/query/stats?metric=limits.redis_fallbacks&from=${now - 60}&to=${now + 1}`, { token: ta['viewer'] });
    expect(stats.status).toBe(200);
    expect(stats.body.series.reduce((n: number, p: { value: number }) => n + p.value, 0)).toBe(12);
  });
});

describe('Redis too slow', () => {
  it('a command unanswered within REDIS_COMMAND_TIMEOUT_MS falls back to the local limits, counted', async () => {
    const [ta] = await both('fleet-slow', 'community');
    const before = await limitsMetrics(a);
    const admin = new Redis(redis.url);
    try {
      // Redis holds every script (writes) for 10 s: connected, but not answering the admission.
      await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
      const r = await call(a.url, 'GET', '/v1/policies', { token: ta['viewer'] });
      expect(r.status).toBe(200);
      const during = await limitsMetrics(a);
      expect(during.connected).toBe(1);
      expect(during.rateLimit).toBe(before.rateLimit + 1);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
  });
});

describe('REDIS_URL', () => {
  it('a malformed value is a clear start-up error', async () => {
    await expect(startTestGateway({ redisUrl: 'http://127.0.0.1:6379' })).rejects.toThrow(/REDIS_URL: scheme http: is not redis:/);
    await expect(startTestGateway({ redisUrl: 'not a url' })).rejects.toThrow(/REDIS_URL: not a URL/);
    await expect(startTestGateway({ redisUrl: 'redis://127.0.0.1:6379/db' })).rejects.toThrow(/REDIS_URL: database "db"/);
  });
});
