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

    it('changes a plan; an unknown tenant answers undefined', async () => {
      const id = uniqueId('plan');
      await b.repos.tenants.create(id, 'community');
      expect(await b.repos.tenants.setPlan(id, 'enterprise')).toMatchObject({ id, plan: 'enterprise' });
      expect(b.repos.tenants.get(id)?.plan).toBe('enterprise');
      expect(await b.repos.tenants.setPlan(uniqueId('none'), 'enterprise')).toBeUndefined();
    });
  });
}
