import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueId, type OpenBackend, type StorageBackend } from './backend.js';

export function describeTenantRepository(open: OpenBackend): void {
  describe('TenantRepository', () => {
    let b: StorageBackend;
    beforeAll(async () => {
      b = await open();
    });
    afterAll(() => b.close());

    it('creates, gets and lists a tenant; an id taken answers undefined and changes nothing', async () => {
      const id = uniqueId('t');
      const rec = await b.repos.tenants.create(id, 'professional', 'Acme');
      expect(rec).toMatchObject({ id, name: 'Acme', plan: 'professional', policy_version: 0 });
      expect(b.repos.tenants.get(id)).toEqual(rec);
      expect(b.repos.tenants.list().filter((t) => t.id === id)).toEqual([rec]);
      expect(await b.repos.tenants.create(id, 'community', 'Other')).toBeUndefined();
      expect(b.repos.tenants.get(id)).toEqual(rec);
    });

    it('refuses an invalid id with a RangeError and stores nothing', async () => {
      await expect(b.repos.tenants.create('Not Valid!', 'community')).rejects.toThrow(RangeError);
      expect(b.repos.tenants.get('Not Valid!')).toBeUndefined();
    });

    it('of two concurrent creations of one id exactly one wins', async () => {
      const id = uniqueId('race');
      const [x, y] = await Promise.all([b.repos.tenants.create(id, 'community', 'x'), b.repos.tenants.create(id, 'enterprise', 'y')]);
      expect([x, y].filter((r) => r !== undefined)).toHaveLength(1);
      expect(b.repos.tenants.get(id)).toEqual(x ?? y);
    });

    it('changes a plan, keeping from, to and who on the record; the same plan again changes nothing; an unknown tenant answers undefined', async () => {
      const id = uniqueId('plan');
      await b.repos.tenants.create(id, 'community');
      const set = await b.repos.tenants.setPlan(id, 'enterprise', 'tok_admin');
      expect(set?.record).toMatchObject({ id, plan: 'enterprise', plan_changed: { from: 'community', to: 'enterprise', by: 'tok_admin' } });
      expect(set?.change).toEqual(set?.record.plan_changed);
      expect(Number.isNaN(Date.parse(set?.change?.at ?? ''))).toBe(false);
      expect(b.repos.tenants.get(id)).toEqual(set?.record);
      const again = await b.repos.tenants.setPlan(id, 'enterprise', 'cli');
      expect(again).toEqual({ record: set?.record, change: null });
      expect((await b.repos.tenants.setPlan(id, 'professional', 'cli'))?.change).toMatchObject({ from: 'enterprise', to: 'professional', by: 'cli' });
      expect(await b.repos.tenants.setPlan(uniqueId('none'), 'enterprise', 'cli')).toBeUndefined();
    });

    it('of concurrent plan changes each records the plan it replaced', async () => {
      const id = uniqueId('plans');
      await b.repos.tenants.create(id, 'community');
      const sets = await Promise.all([b.repos.tenants.setPlan(id, 'professional', 'a'), b.repos.tenants.setPlan(id, 'enterprise', 'b')]);
      const changes = sets.map((s) => s?.change).filter((c) => c !== null && c !== undefined);
      expect(changes).toHaveLength(2);
      // One replaced community, the other the plan the first set: a chain of changes, never two from the same plan.
      const first = changes.find((c) => c.from === 'community')!;
      const second = changes.find((c) => c !== first)!;
      expect(second.from).toBe(first.to);
      expect(b.repos.tenants.get(id)?.plan).toBe(second.to);
    });
  });
}
