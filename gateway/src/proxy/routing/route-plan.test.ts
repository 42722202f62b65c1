import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs } from './backoff.js';
import { Breaker } from './breaker.js';
import { attemptOrder, compileRoutes, nextCredential } from './route-plan.js';
import { ROUTE_DEFAULTS } from './route-schema.js';
import type { RouteSpec } from './route-spec.js';

const SPEC: RouteSpec = {
  targets: {
    'openai-main': { provider: 'openai', base_url: 'https://api.openai.com/v1', credential: 'k1' },
    'openai-spare': { provider: 'openai', base_url: 'https://api.openai.com/v1', credentials: ['k2', 'k3'] },
    'azure-eu': { provider: 'azure', base_url: 'https://x.openai.azure.com', deployments: { 'gpt-4o': 'gpt4o-eu' } },
    local: { provider: 'openai', base_url: 'http://vllm:8000/v1' },
  },
  models: {
    'gpt-4o': { strategy: 'fallback', targets: ['openai-main', 'azure-eu', { target: 'openai-spare' }] },
    fast: { strategy: 'weighted', targets: [{ target: 'openai-main', model: 'gpt-4.1-mini', weight: 3 }, { target: 'local', model: 'qwen3-8b', weight: 1 }] },
  },
  breaker: { consecutive_failures: 2, open_s: 30 },
};

const compile = () => compileRoutes(SPEC, 1, (t) => t.base_url);

/** A seeded generator: the same draws every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('a compiled route', () => {
  it('keeps the defaults the documentation gives where the spec leaves them out', () => {
    const plan = compile();
    expect(plan.retry.attempts).toBe(ROUTE_DEFAULTS.retry.attempts);
    expect([...plan.retry.statuses]).toEqual([429, 500, 502, 503, 504]);
    expect(plan.retry).toMatchObject({ onConnect: true, onTimeout: true, baseMs: 200, maxMs: 5000, retryAfterCapMs: 30_000 });
    expect(plan.timeouts).toEqual({ connectMs: 10_000, firstByteMs: 120_000, idleStreamMs: 120_000 });
    expect(plan.restMs).toBe(30_000);
    expect([...plan.models.get('gpt-4o')!.families]).toEqual(['openai']);
  });

  it('tries a fallback route in its order, an open breaker last', () => {
    const plan = compile();
    const model = plan.models.get('gpt-4o')!;
    expect(attemptOrder(model, 0).map((c) => c.target.name)).toEqual(['openai-main', 'azure-eu', 'openai-spare']);
    const main = model.choices[0]!.target;
    main.breaker.failed(1000);
    main.breaker.failed(1000);
    expect(attemptOrder(model, 1001).map((c) => c.target.name)).toEqual(['azure-eu', 'openai-spare', 'openai-main']);
  });

  it('spreads a weighted route by its weights (3:1 over 20,000 draws, within 2 %)', () => {
    const model = compile().models.get('fast')!;
    const random = seeded(7);
    let first = 0;
    for (let i = 0; i < 20_000; i++) if (attemptOrder(model, 0, random)[0]!.target.name === 'openai-main') first++;
    expect(first / 20_000).toBeGreaterThan(0.73);
    expect(first / 20_000).toBeLessThan(0.77);
    // Every draw still lists every target: the others are the fallbacks.
    expect(attemptOrder(model, 0, random)).toHaveLength(2);
  });

  it("rotates a target's credentials and skips one that rests; none when all rest; null when it names none", () => {
    const plan = compile();
    const spare = plan.models.get('gpt-4o')!.choices[2]!.target;
    expect([nextCredential(spare, 0), nextCredential(spare, 0), nextCredential(spare, 0)]).toEqual(['k2', 'k3', 'k2']);
    spare.rested.set('k3', 10_000);
    expect([nextCredential(spare, 1), nextCredential(spare, 1)]).toEqual(['k2', 'k2']);
    spare.rested.set('k2', 10_000);
    expect(nextCredential(spare, 1)).toBeUndefined();
    // Rested until 10 s: back in rotation from then on, call after call.
    const after = [nextCredential(spare, 10_000), nextCredential(spare, 10_000), nextCredential(spare, 10_001)];
    expect(new Set(after)).toEqual(new Set(['k2', 'k3']));
    expect(nextCredential(plan.models.get('fast')!.choices[1]!.target, 0)).toBeNull();
  });
});

describe('a breaker', () => {
  it('opens after its failures in a row, lets one trial through after open_s, and closes or re-opens on its outcome', () => {
    const b = new Breaker(3, 1000);
    b.failed(0);
    b.failed(0);
    b.succeeded();
    b.failed(0);
    b.failed(0);
    expect(b.allows(0)).toBe(true);
    b.failed(10);
    expect(b.allows(500)).toBe(false);
    expect(b.allows(1010)).toBe(true);
    // The trial is out: nobody else gets through until it ends.
    expect(b.allows(1011)).toBe(false);
    b.failed(1020);
    expect(b.allows(1500)).toBe(false);
    expect(b.allows(2020)).toBe(true);
    b.succeeded();
    expect(b.allows(2021)).toBe(true);
    expect(b.isOpen(2021)).toBe(false);
  });
});

describe('waiting between attempts', () => {
  it('draws a full-jitter backoff between 0 and min(max, base · 2^(n−1))', () => {
    expect(backoffMs(1, 200, 5000, () => 0.999)).toBe(199);
    expect(backoffMs(3, 200, 5000, () => 0.5)).toBe(400);
    expect(backoffMs(10, 200, 5000, () => 0.999)).toBe(4995);
    expect(backoffMs(2, 200, 5000, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or an HTTP date; anything else is no advice', () => {
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('Wed, 21 Oct 2026 07:27:58 GMT'))).toBe(2000);
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs('-1')).toBeNull();
  });
});
