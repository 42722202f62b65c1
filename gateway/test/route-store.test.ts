import { describe, expect, it } from 'vitest';
import { RouteStore, type RouteChange } from '../src/proxy/routing/route-store.js';
import type { RouteSpec } from '../src/proxy/routing/route-spec.js';
import { tempGatewayStores } from './helpers/temp-gateway-store.js';
import { exampleRoutes } from './helpers/example-routes.js';

const stores = tempGatewayStores('aduana-route-store-');

const ONE: RouteSpec = { targets: { a: { provider: 'openai', base_url: 'https://a.example/v1' } } };
const TWO: RouteSpec = { targets: { b: { provider: 'anthropic', base_url: 'https://b.example' } } };

function open(): { routes: RouteStore; changed: string[] } {
  let t = Date.UTC(2026, 0, 1);
  const routes = new RouteStore(stores.open().routes, () => (t += 1000));
  const changed: string[] = [];
  routes.onChange = (tenant) => changed.push(tenant);
  return { routes, changed };
}

describe('RouteStore', () => {
  it('a tenant without routes: null, version 0, nobody', () => {
    const { routes } = open();
    expect(routes.get('acme')).toBeNull();
    expect(routes.state('acme')).toEqual({ version: 0, spec: null, updated_at: null, updated_by: null });
    expect([...routes.all()]).toEqual([]);
  });

  it('each change bumps the version and tells onChange; the same routes again change nothing', async () => {
    const { routes, changed } = open();
    const first = await routes.put('acme', exampleRoutes(), 'tok_a');
    expect(first).toEqual({
      before: { version: 0, spec: null, updated_at: null, updated_by: null },
      after: { version: 1, spec: exampleRoutes(), updated_at: '2026-01-01T00:00:01.000Z', updated_by: 'tok_a' },
      changed: true,
    });
    expect(routes.get('acme')).toEqual(first.after);
    // Keys in another order are the same routes (canonical JSON).
    const reordered = { breaker: exampleRoutes().breaker, ...exampleRoutes() };
    const again = await routes.put('acme', reordered, 'tok_b');
    expect(again).toEqual({ before: first.after, after: first.after, changed: false });
    const second = await routes.put('acme', ONE, 'tok_b');
    expect(second.after).toMatchObject({ version: 2, spec: ONE, updated_by: 'tok_b' });
    expect(second.before).toEqual(first.after);
    expect(changed).toEqual(['acme', 'acme']);
  });

  it('DELETE keeps counting: the next routes take the next version', async () => {
    const { routes, changed } = open();
    await routes.put('acme', ONE, 'tok_a');
    const deleted = await routes.delete('acme', 'tok_a');
    expect(deleted?.after).toMatchObject({ version: 2, spec: null, updated_by: 'tok_a' });
    expect(routes.get('acme')).toBeNull();
    expect(routes.state('acme').version).toBe(2);
    expect(await routes.delete('acme', 'tok_a')).toBeNull();
    const back = await routes.put('acme', ONE, 'tok_a');
    expect(back.before.spec).toBeNull();
    expect(back.after.version).toBe(3);
    expect(changed).toEqual(['acme', 'acme', 'acme']);
  });

  it('tenants apart: all() lists those with routes in force', async () => {
    const { routes } = open();
    await routes.put('acme', ONE, 'tok_a');
    await routes.put('globex', TWO, 'tok_g');
    await routes.put('initech', ONE, 'tok_i');
    await routes.delete('initech', 'tok_i');
    expect(routes.get('globex')?.spec).toEqual(TWO);
    expect(routes.get('acme')?.spec).toEqual(ONE);
    expect([...routes.all()].map(([tenant, r]) => [tenant, r.version])).toEqual([
      ['acme', 1],
      ['globex', 1],
    ]);
  });

  it('changes are made one at a time, each told to `after` in the order of the versions', async () => {
    const { routes } = open();
    const told: RouteChange[] = [];
    const after = async (c: RouteChange) => {
      // A slow ledger: the next change still waits for this one.
      await new Promise((r) => setTimeout(r, 5));
      told.push(c);
    };
    const results = await Promise.all([routes.put('acme', ONE, 'x', after), routes.put('acme', TWO, 'y', after), routes.delete('acme', 'z', after), routes.put('acme', ONE, 'w', after)]);
    expect(results.map((r) => r?.after.version)).toEqual([1, 2, 3, 4]);
    expect(told.map((c) => [c.before.version, c.after.version])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });

  it('a failed `after` fails its change, which stays made; the next change goes on', async () => {
    const { routes } = open();
    await expect(routes.put('acme', ONE, 'x', () => Promise.reject(new Error('ledger down')))).rejects.toThrow('ledger down');
    expect(routes.state('acme').version).toBe(1);
    expect((await routes.put('acme', TWO, 'y')).after.version).toBe(2);
  });
});
