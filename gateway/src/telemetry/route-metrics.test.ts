import { describe, expect, it } from 'vitest';
import { OVERFLOW, ROUTE_SERIES_MAX, RouteMetrics } from './route-metrics.js';

const counts = (m: RouteMetrics, tenant: string) => [...m.pairs(tenant)].map(([target, model, c]) => ({ target, model, outcomes: Object.fromEntries(c.outcomes), fallbacks: c.fallbacks }));

describe('RouteMetrics', () => {
  it('labels each attempt with a bounded outcome and counts a fallback on the target that answered, not a call its first target answered', () => {
    const m = new RouteMetrics();
    m.call('acme', {
      target: 'b',
      attempts: [
        { target: 'a', model: 'm', error: 'refused' },
        { target: 'a', model: 'm', status: 429 },
        { target: 'b', model: 'n', status: 404 },
        { target: 'b', model: 'n', status: 503 },
        { target: 'b', model: 'n', status: 200 },
      ],
    });
    m.call('acme', { target: 'a', attempts: [{ target: 'a', model: 'm', status: 502 }, { target: 'a', model: 'm', status: 302 }] });
    // No answer at all: attempts counted, no fallback.
    m.call('acme', { target: '', attempts: [{ target: 'a', model: 'm', error: 'credentials_resting' }, { target: 'b', model: 'n', error: 'timeout' }] });
    expect(counts(m, 'acme')).toEqual([
      { target: 'a', model: 'm', outcomes: { refused: 1, '429': 1, '5xx': 1, ok: 1, credentials_resting: 1 }, fallbacks: 0 },
      { target: 'b', model: 'n', outcomes: { '4xx': 1, '5xx': 1, ok: 1, timeout: 1 }, fallbacks: 1 },
    ]);
    expect(counts(m, 'other')).toEqual([]);
  });

  it(`keeps at most ${ROUTE_SERIES_MAX} (target, model) pairs per tenant, counting later ones under ${OVERFLOW}`, () => {
    const m = new RouteMetrics();
    for (let i = 0; i < ROUTE_SERIES_MAX + 10; i++) m.call('acme', { target: `t${i}`, attempts: [{ target: `t${i}`, model: 'm', status: 200 }] });
    m.call('acme', { target: 't0', attempts: [{ target: 't0', model: 'm', status: 200 }] });
    m.call('small', { target: 'x', attempts: [{ target: 'x', model: 'm', status: 200 }] });
    const pairs = counts(m, 'acme');
    expect(pairs).toHaveLength(ROUTE_SERIES_MAX + 1);
    expect(pairs.find((p) => p.target === 't0')!.outcomes).toEqual({ ok: 2 });
    expect(pairs.find((p) => p.target === OVERFLOW)).toEqual({ target: OVERFLOW, model: OVERFLOW, outcomes: { ok: 10 }, fallbacks: 0 });
    expect(counts(m, 'small')).toHaveLength(1);
  });

  it("shows a breaker open until its latest opening's end, 0 for the tenant's other targets, and none after its routes changed", () => {
    let now = 1000;
    const m = new RouteMetrics(() => now);
    m.call('acme', { target: 'b', attempts: [{ target: 'a', model: 'm', error: 'refused' }, { target: 'b', model: 'm', status: 200 }] });
    // Two threads' routers opened it: the later end holds.
    m.breakerOpened('acme', 'a', 5000);
    m.breakerOpened('acme', 'a', 3000);
    expect([...m.breakers('acme')]).toEqual([
      ['a', 1],
      ['b', 0],
    ]);
    now = 4999;
    expect([...m.breakers('acme')]).toContainEqual(['a', 1]);
    now = 5000;
    expect([...m.breakers('acme')]).toContainEqual(['a', 0]);
    now = 1000;
    m.breakerOpened('acme', 'a', 9000);
    m.routesChanged('acme');
    expect([...m.breakers('acme')]).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
  });
});
